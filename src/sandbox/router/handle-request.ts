import { type EndpointName, endpointAt } from "../../endpoints.js";
import { redactText } from "../../internal/redact.js";
import { type ApiContext, findMerchant } from "../api/endpoint.js";
import { ENDPOINT_HANDLERS } from "../api/handlers.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { checkoutPage } from "../pages/checkout-page.js";
import { acknowledgeDemoIpn, DEMO_SHOP_PATH, showDemoShopPage } from "../pages/demo-shop.js";
import { html, notice } from "../pages/html.js";
import { openHostedPage, pageForm } from "../pages/page-link.js";
import { threeDsPage } from "../pages/three-ds-page.js";
import { type ApiMessage, isBrowserForm, readMessage } from "../wire/authentication.js";
import { normalPath, type ReceivedEntry } from "../wire/received-log.js";
import { readBodyText } from "../wire/request-body.js";
import type { SandboxRequest, SandboxResponse } from "../wire/request-response.js";
import { type ApiResponse, badRequest, isApiResponse, notFound } from "../wire/spec-responses.js";
import { formErrorPage, jsonResponse, methodNotAllowed, pageResponse, type Routed } from "./response-encoding.js";

/** A request read once and recorded: what every handler works from. */
interface Arrived {
	request: SandboxRequest;
	url: URL;
	/** The URL's path without a trailing slash. */
	path: string;
	/** Where links in the response point. */
	origin: string;
	body: string;
	/** The endpoint of the table at this path, if any. */
	endpoint: EndpointName | undefined;
	/** On an API path: the message as sent, or the response refusing the body. */
	message: ApiMessage | ApiResponse | undefined;
	received: ReceivedEntry;
}

/** Reads the body (the one place it is read) and, on an API path, the message in it; a 413 when it is too large. */
async function readRequest(
	request: SandboxRequest,
	url: URL,
	origin: string,
	received: ReceivedEntry,
): Promise<Arrived | ApiResponse> {
	const body = await readBodyText(request);
	if (body === undefined) return badRequest("The request body is larger than 1 MiB.", 413);
	received.raw = body;
	const path = received.path;
	const endpoint = endpointAt(path);
	let message: ApiMessage | ApiResponse | undefined;
	if (endpoint !== undefined) {
		// Only the checkout endpoint takes a browser's form post (DIRECT_POST).
		message = readMessage(body, request.headers.get("content-type"), endpoint === "checkout");
		if (!isApiResponse(message)) {
			received.claimed = message.claimed;
			received.signVersion = typeof message.envelope.body.payload === "string" ? "2.1" : "2.0";
		}
	}
	return { request, url, path, origin, body, endpoint, message, received };
}

const HOME_BODY =
	"<header><h1>Merchant Gateway sandbox</h1></header>" +
	"<p>API under <code>/v2</code>; hosted checkout under <code>/pay</code>.</p>";

/** An API endpoint of the table: its handler's response, as JSON or, for a browser's form, as a page or a redirect. */
function respondToApi(core: SandboxCore, arrived: Arrived & { endpoint: NonNullable<Arrived["endpoint"]> }): Routed {
	const { request, origin, endpoint } = arrived;
	if (request.method !== "POST") return methodNotAllowed("POST");
	const message = arrived.message ?? notFound("No such endpoint.");
	const ctx: ApiContext = { core, origin, message, received: arrived.received };
	const response = ENDPOINT_HANDLERS[endpoint].respond(ctx);
	if ("redirect" in response) return pageResponse({ status: 303, location: response.redirect }, origin);
	// A checkout posted by a browser's form that the sandbox refuses: the buyer gets a page, not JSON.
	const browserForm = endpoint === "checkout" && isBrowserForm(request.headers.get("content-type"));
	return browserForm && response.status >= 400 ? pageResponse(formErrorPage(response), origin) : jsonResponse(response);
}

/** Responds to a request that was read: the API, the hosted pages, or a 404. */
function dispatch(core: SandboxCore, arrived: Arrived): Routed {
	const { request, url, path, origin, endpoint } = arrived;
	if (endpoint !== undefined) return respondToApi(core, { ...arrived, endpoint });
	const pageMatch = /^\/(pay|3ds)\/([0-9A-Za-z]{26})$/.exec(path);
	if (pageMatch) {
		const [, kind, id = ""] = pageMatch;
		const shown = request.method === "GET" || request.method === "HEAD";
		if (!shown && request.method !== "POST") return methodNotAllowed("GET, POST");
		const form = shown ? undefined : pageForm(request.headers.get("content-type"), arrived.body);
		const page = kind === "pay" ? checkoutPage : threeDsPage;
		return pageResponse(openHostedPage(core, page, id, url, request.headers.get("referer"), form), origin);
	}
	if (path === `${DEMO_SHOP_PATH}/ipn`) {
		return request.method === "POST" ? jsonResponse(acknowledgeDemoIpn(core, arrived.body)) : methodNotAllowed("POST");
	}
	if ((path === DEMO_SHOP_PATH || path.startsWith(`${DEMO_SHOP_PATH}/`)) && request.method === "GET") {
		return pageResponse(showDemoShopPage(core, path.slice(DEMO_SHOP_PATH.length + 1), url), origin);
	}
	if (path === "/" && request.method === "GET")
		return pageResponse(html(200, "Merchant Gateway sandbox", HOME_BODY), origin);
	if (path.startsWith("/v2/")) return jsonResponse(notFound("No such endpoint."));
	return pageResponse(notice(404, "Not found", "Nothing lives at this address."), origin);
}

/** The one entry point every face uses: a request in, a response out (or a connection a fault drops). */
export async function handleRequest(
	core: SandboxCore,
	request: SandboxRequest,
	origin?: string,
): Promise<SandboxResponse> {
	const url = new URL(request.url);
	const received = core.received.add({
		receivedAt: core.clock.now(),
		method: request.method,
		path: normalPath(url.pathname),
		url: request.url,
		headers: request.headers,
		raw: "",
		claimed: undefined,
		signVersion: undefined,
		verified: undefined,
		status: undefined,
	});
	const fault = core.faults.take(received.path);
	let routed: Routed;
	try {
		const read = () => readRequest(request, url, origin ?? url.origin, received);
		let mark: number | undefined;
		const respond = async (arrived: Arrived | ApiResponse) => {
			mark = core.mark();
			return isApiResponse(arrived) ? jsonResponse(arrived) : dispatch(core, arrived);
		};
		const accountVersion = (claimed: Record<string, unknown>) => findMerchant(core, claimed)?.merchant?.signVersion;
		const sandbox = { clock: core.clock, signer: core.signer, accountVersion };
		routed = fault
			? await core.faults.run(fault, received, read, respond, sandbox, request.signal)
			: await respond(await read());
		// With a state directory, nothing leaves before the changes it reports are on disk; a response
		// built on a change that could not be saved becomes an error (the change left the books).
		await core.saved(mark);
	} catch (error) {
		// Details stay out of the response; the event gets a redacted message.
		core.emit({ type: "error", message: redactText(error instanceof Error ? error.message : String(error)) });
		const failed = { status: "error", message: "The sandbox failed to handle this request." };
		routed = jsonResponse({ status: 500, json: failed });
	}
	const { detail, ...response } = routed;
	received.status = response.drop === "before-response" ? "dropped" : response.status;
	const why = detail === undefined ? {} : { detail };
	core.emit({ type: "request", method: request.method, path: url.pathname, status: response.status, ...why });
	return response;
}
