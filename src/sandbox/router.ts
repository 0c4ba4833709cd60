import { redactText } from "../internal/redact.js";
import { chargeCard } from "./api/card.js";
import { createCheckout } from "./api/checkout.js";
import type { ApiContext } from "./api/context.js";
import { queryRefund, queryTransaction } from "./api/queries.js";
import { createRefund } from "./api/refund.js";
import type { SandboxCore } from "./core.js";
import { showCheckoutPage, submitCheckoutPage } from "./pages/checkout-page.js";
import { escapeHtml, html, notice, type PageReply } from "./pages/html.js";
import { showThreeDsPage, submitThreeDsPage } from "./pages/three-ds-page.js";
import type { ApiReply } from "./replies.js";

const API: Record<string, (ctx: ApiContext) => Promise<ApiReply>> = {
	"/v2/card/api": chargeCard,
	"/v2/checkout/query": queryTransaction,
	"/v2/refund": createRefund,
	"/v2/refund/query": queryRefund,
};

const PAGE_HEADERS = {
	"content-type": "text/html; charset=utf-8",
	"cache-control": "no-store",
	// Nothing but the page's own inline styles (and the merchant's logo) may load.
	"content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
};

function jsonResponse(reply: ApiReply, extra: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(reply.json), { status: reply.status, headers: { "content-type": "application/json", ...extra } });
}

function pageResponse(reply: PageReply, origin: string): Response {
	if (reply.location !== undefined)
		return new Response(null, { status: reply.status, headers: { location: new URL(reply.location, origin).href, "cache-control": "no-store" } });
	return new Response(reply.html ?? "", { status: reply.status, headers: PAGE_HEADERS });
}

/** A DIRECT_POST form the sandbox refused: the buyer's browser gets a page, not JSON. */
function formErrorPage(reply: ApiReply): PageReply {
	const errors = Array.isArray(reply.json.errors) ? (reply.json.errors as { field: string; message: string[] }[]) : [];
	const items = errors.map((e) => `<li><code>${escapeHtml(e.field)}</code>: ${escapeHtml(e.message.join(", "))}</li>`).join("");
	return html(
		reply.status,
		"Checkout refused",
		`<header><h1>Checkout refused</h1></header><p>${escapeHtml(String(reply.json.message ?? ""))}</p><ul>${items}</ul>`,
	);
}

const methodNotAllowed = (allow: string): Response =>
	new Response(JSON.stringify({ status: "error", message: `Method not allowed; use ${allow}.` }), {
		status: 405,
		headers: { "content-type": "application/json", allow },
	});

async function dispatch(core: SandboxCore, request: Request, url: URL, origin: string): Promise<Response> {
	const path = url.pathname.replace(/\/+$/, "") || "/";
	const ctx: ApiContext = { core, request, origin };
	if (path === "/v2/checkout") {
		if (request.method !== "POST") return methodNotAllowed("POST");
		const reply = await createCheckout(ctx);
		if ("redirect" in reply) return pageResponse({ status: 303, location: reply.redirect }, origin);
		if ("failedForm" in reply) return pageResponse(formErrorPage(reply.failedForm), origin);
		return jsonResponse(reply);
	}
	const api = API[path];
	if (api) return request.method === "POST" ? jsonResponse(await api(ctx)) : methodNotAllowed("POST");
	const pageMatch = /^\/(pay|3ds)\/([0-9A-Za-z]{26})$/.exec(path);
	if (pageMatch) {
		const [, kind, id = ""] = pageMatch;
		if (request.method === "GET" || request.method === "HEAD") {
			return pageResponse(kind === "pay" ? showCheckoutPage(core, id, url) : showThreeDsPage(core, id, url), origin);
		}
		if (request.method === "POST")
			return pageResponse(kind === "pay" ? await submitCheckoutPage(core, id, request) : await submitThreeDsPage(core, id, request), origin);
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
	if (path.startsWith("/v2/")) return jsonResponse({ status: 404, json: { status: "error", message: "No such endpoint." } });
	return pageResponse(notice(404, "Not found", "Nothing lives at this address."), origin);
}

/** The one entry point every face uses: a Web `Request` in, a `Response` out. */
export async function handleRequest(core: SandboxCore, request: Request, origin?: string): Promise<Response> {
	const url = new URL(request.url);
	const base = origin ?? url.origin;
	let response: Response;
	try {
		response = await dispatch(core, request, url, base);
	} catch (error) {
		// Details stay out of the answer; the event gets a redacted message.
		core.emit({ type: "error", message: redactText(error instanceof Error ? error.message : String(error)) });
		response = jsonResponse({ status: 500, json: { status: "error", message: "The sandbox failed to handle this request." } });
	}
	core.emit({ type: "request", method: request.method, path: url.pathname, status: response.status });
	return response;
}
