import { escapeHtml } from "../internal/escape-html.js";
import { redactText } from "../internal/redact.js";
import { chargeCard } from "./api/card.js";
import { createCheckout } from "./api/checkout.js";
import type { ApiContext } from "./api/context.js";
import { queryRefund, queryTransaction } from "./api/queries.js";
import { createRefund } from "./api/refund.js";
import { type Arrived, arrivalRecord, readRequest } from "./arrival.js";
import type { SandboxCore } from "./core.js";
import type { SandboxReply, SandboxRequest } from "./exchange.js";
import { runFault } from "./fault-runner.js";
import { pageForm } from "./page-form.js";
import { showCheckoutPage, submitCheckoutPage } from "./pages/checkout-page.js";
import { html, notice, type PageReply } from "./pages/html.js";
import { showThreeDsPage, submitThreeDsPage } from "./pages/three-ds-page.js";
import type { ApiReply } from "./replies.js";
import { isReply } from "./validate.js";

const API: Record<string, (ctx: ApiContext) => Promise<ApiReply>> = {
	"/v2/card/api": chargeCard,
	"/v2/checkout/query": queryTransaction,
	"/v2/refund": createRefund,
	"/v2/refund/query": queryRefund,
};

const unknownEndpoint = async (): Promise<ApiReply> => ({
	status: 404,
	json: { status: "error", message: "No such endpoint." },
});

const PAGE_HEADERS = {
	"content-type": "text/html; charset=utf-8",
	"cache-control": "no-store",
	// Nothing but the page's own inline styles (and the merchant's logo) may load.
	"content-security-policy":
		"default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
};

/** A reply, and why the request was refused when the answer itself cannot say (for the request event). */
type Routed = SandboxReply & { detail?: string | undefined };

function jsonResponse(reply: ApiReply, extra: Record<string, string> = {}): Routed {
	return {
		status: reply.status,
		headers: { "content-type": "application/json", ...extra },
		body: JSON.stringify(reply.json),
		detail: reply.detail && redactText(reply.detail),
	};
}

function pageResponse(reply: PageReply, origin: string): SandboxReply {
	if (reply.location !== undefined) {
		return {
			status: reply.status,
			headers: { location: new URL(reply.location, origin).href, "cache-control": "no-store" },
			body: "",
		};
	}
	return { status: reply.status, headers: PAGE_HEADERS, body: reply.html ?? "" };
}

/** A DIRECT_POST form the sandbox refused: the buyer's browser gets a page, not JSON. */
function formErrorPage(reply: ApiReply): PageReply {
	const errors = Array.isArray(reply.json.errors) ? (reply.json.errors as { field: string; message: string[] }[]) : [];
	const items = errors
		.map((e) => `<li><code>${escapeHtml(e.field)}</code>: ${escapeHtml(e.message.join(", "))}</li>`)
		.join("");
	return html(
		reply.status,
		"Checkout refused",
		`<header><h1>Checkout refused</h1></header><p>${escapeHtml(String(reply.json.message ?? ""))}</p><ul>${items}</ul>`,
	);
}

const methodNotAllowed = (allow: string): SandboxReply =>
	jsonResponse({ status: 405, json: { status: "error", message: `Method not allowed; use ${allow}.` } }, { allow });

/** Answers a request that was read: the API, the hosted pages, or a 404. */
export async function dispatch(core: SandboxCore, arrived: Arrived): Promise<Routed> {
	const { request, url, path, origin } = arrived;
	if (arrived.message !== undefined) {
		if (request.method !== "POST") return methodNotAllowed("POST");
		const ctx: ApiContext = { core, request, origin, envelope: arrived.message, received: arrived.received };
		if (path !== "/v2/checkout") return jsonResponse(await (API[path] ?? unknownEndpoint)(ctx));
		const reply = await createCheckout(ctx);
		if ("redirect" in reply) return pageResponse({ status: 303, location: reply.redirect }, origin);
		if ("failedForm" in reply) return pageResponse(formErrorPage(reply.failedForm), origin);
		return jsonResponse(reply);
	}
	const pageMatch = /^\/(pay|3ds)\/([0-9A-Za-z]{26})$/.exec(path);
	if (pageMatch) {
		const [, kind, id = ""] = pageMatch;
		if (request.method === "GET" || request.method === "HEAD") {
			return pageResponse(kind === "pay" ? showCheckoutPage(core, id, url) : showThreeDsPage(core, id, url), origin);
		}
		if (request.method === "POST") {
			const form = pageForm(request.headers.get("content-type"), arrived.body);
			return pageResponse(
				kind === "pay" ? submitCheckoutPage(core, id, form) : submitThreeDsPage(core, id, form),
				origin,
			);
		}
		return methodNotAllowed("GET, POST");
	}
	if (path === "/" && request.method === "GET") {
		return pageResponse(
			html(
				200,
				"Merchant Gateway sandbox",
				"<header><h1>Merchant Gateway sandbox</h1></header><p>API under <code>/v2</code>; hosted checkout under <code>/pay</code>.</p>",
			),
			origin,
		);
	}
	if (path.startsWith("/v2/"))
		return jsonResponse({ status: 404, json: { status: "error", message: "No such endpoint." } });
	return pageResponse(notice(404, "Not found", "Nothing lives at this address."), origin);
}

/** The one entry point every face uses: a request in, a reply out. */
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
			isReply(arrived) ? jsonResponse(arrived) : dispatch(core, arrived);
		response = fault ? await runFault(core, fault, received, read, answer, request.signal) : await answer(await read());
	} catch (error) {
		// Details stay out of the answer; the event gets a redacted message.
		core.emit({ type: "error", message: redactText(error instanceof Error ? error.message : String(error)) });
		response = jsonResponse({
			status: 500,
			json: { status: "error", message: "The sandbox failed to handle this request." },
		});
	}
	const { detail, ...reply } = response;
	received.status = reply.drop === "before-answer" ? "dropped" : reply.status;
	const why = detail === undefined ? {} : { detail };
	core.emit({ type: "request", method: request.method, path: url.pathname, status: reply.status, ...why });
	return reply;
}
