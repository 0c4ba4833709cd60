import { redactText } from "../internal/redact.js";
import type { ApiContext } from "./api/context.js";
import { ENDPOINT_HANDLERS } from "./api/handlers.js";
import { type Arrived, arrivalRecord, readRequest } from "./arrival.js";
import { isBrowserForm } from "./authenticate.js";
import type { SandboxCore } from "./core.js";
import type { SandboxReply, SandboxRequest } from "./exchange.js";
import { runFault } from "./fault-runner.js";
import { pageForm } from "./page-form.js";
import { showCheckoutPage, submitCheckoutPage } from "./pages/checkout-page.js";
import { acknowledgeDemoIpn, DEMO_SHOP_PATH, showDemoShopPage } from "./pages/demo-shop.js";
import { html, notice } from "./pages/html.js";
import { showThreeDsPage, submitThreeDsPage } from "./pages/three-ds-page.js";
import { type ApiReply, isReply, notFound } from "./replies.js";
import { formErrorPage, jsonReply, methodNotAllowed, pageReply, type Routed } from "./reply-forms.js";

const HOME_BODY =
	"<header><h1>Merchant Gateway sandbox</h1></header>" +
	"<p>API under <code>/v2</code>; hosted checkout under <code>/pay</code>.</p>";

/** An API endpoint of the table: its handler's answer, as JSON or, for a browser's form, as a page or a redirect. */
function answerApi(core: SandboxCore, arrived: Arrived & { endpoint: NonNullable<Arrived["endpoint"]> }): Routed {
	const { request, origin, endpoint } = arrived;
	if (request.method !== "POST") return methodNotAllowed("POST");
	const message = arrived.message ?? notFound("No such endpoint.");
	const ctx: ApiContext = { core, origin, message, received: arrived.received };
	const reply = ENDPOINT_HANDLERS[endpoint].answer(ctx);
	if ("redirect" in reply) return pageReply({ status: 303, location: reply.redirect }, origin);
	// A checkout posted by a browser's form that the sandbox refuses: the buyer gets a page, not JSON.
	const browserForm = endpoint === "checkout" && isBrowserForm(request.headers.get("content-type"));
	return browserForm && reply.status >= 400 ? pageReply(formErrorPage(reply), origin) : jsonReply(reply);
}

/** Answers a request that was read: the API, the hosted pages, or a 404. */
function dispatch(core: SandboxCore, arrived: Arrived): Routed {
	const { request, url, path, origin, endpoint } = arrived;
	if (endpoint !== undefined) return answerApi(core, { ...arrived, endpoint });
	const pageMatch = /^\/(pay|3ds)\/([0-9A-Za-z]{26})$/.exec(path);
	if (pageMatch) {
		const [, kind, id = ""] = pageMatch;
		if (request.method === "GET" || request.method === "HEAD") {
			const referer = request.headers.get("referer");
			const shown = kind === "pay" ? showCheckoutPage(core, id, url, referer) : showThreeDsPage(core, id, url, referer);
			return pageReply(shown, origin);
		}
		if (request.method !== "POST") return methodNotAllowed("GET, POST");
		const form = pageForm(request.headers.get("content-type"), arrived.body);
		const referer = request.headers.get("referer");
		const submitted =
			kind === "pay"
				? submitCheckoutPage(core, id, form, url, referer)
				: submitThreeDsPage(core, id, form, url, referer);
		return pageReply(submitted, origin);
	}
	if (path === `${DEMO_SHOP_PATH}/ipn`) {
		return request.method === "POST" ? jsonReply(acknowledgeDemoIpn(core, arrived.body)) : methodNotAllowed("POST");
	}
	if ((path === DEMO_SHOP_PATH || path.startsWith(`${DEMO_SHOP_PATH}/`)) && request.method === "GET") {
		return pageReply(showDemoShopPage(core, path.slice(DEMO_SHOP_PATH.length + 1), url), origin);
	}
	if (path === "/" && request.method === "GET")
		return pageReply(html(200, "Merchant Gateway sandbox", HOME_BODY), origin);
	if (path.startsWith("/v2/")) return jsonReply(notFound("No such endpoint."));
	return pageReply(notice(404, "Not found", "Nothing lives at this address."), origin);
}

/** The one entry point every face uses: a request in, a reply out (or a connection a fault drops). */
export async function handleRequest(
	core: SandboxCore,
	request: SandboxRequest,
	origin?: string,
): Promise<SandboxReply> {
	const url = new URL(request.url);
	const received = core.received.add(arrivalRecord(core, request, url));
	const fault = core.faults.take(received.path);
	let response: Routed;
	try {
		const read = () => readRequest(request, url, origin ?? url.origin, received);
		const answer = async (arrived: Arrived | ApiReply) =>
			isReply(arrived) ? jsonReply(arrived) : dispatch(core, arrived);
		response = fault ? await runFault(core, fault, received, read, answer, request.signal) : await answer(await read());
	} catch (error) {
		// Details stay out of the answer; the event gets a redacted message.
		core.emit({ type: "error", message: redactText(error instanceof Error ? error.message : String(error)) });
		const failed = { status: "error", message: "The sandbox failed to handle this request." };
		response = jsonReply({ status: 500, json: failed });
	}
	const { detail, ...reply } = response;
	received.status = reply.drop === "before-answer" ? "dropped" : reply.status;
	const why = detail === undefined ? {} : { detail };
	core.emit({ type: "request", method: request.method, path: url.pathname, status: reply.status, ...why });
	return reply;
}
