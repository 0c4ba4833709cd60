import { redactText } from "../internal/redact.js";
import { chargeCard } from "./api/card.js";
import { createCheckout } from "./api/checkout.js";
import type { ApiContext } from "./api/context.js";
import { queryRefund, queryTransaction } from "./api/queries.js";
import { createRefund } from "./api/refund.js";
import type { SandboxCore } from "./core.js";
import type { SandboxReply, SandboxRequest } from "./exchange.js";
import { showCheckoutPage, submitCheckoutPage } from "./pages/checkout-page.js";
import { acknowledgeDemoIpn, DEMO_SHOP_PATH, showDemoShopPage } from "./pages/demo-shop.js";
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

async function dispatch(core: SandboxCore, request: SandboxRequest, url: URL, origin: string): Promise<Routed> {
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
			const referer = request.headers.get("referer");
			const shown = kind === "pay" ? showCheckoutPage(core, id, url, referer) : showThreeDsPage(core, id, url, referer);
			return pageResponse(shown, origin);
		}
		if (request.method === "POST")
			return pageResponse(
				kind === "pay" ? await submitCheckoutPage(core, id, request) : await submitThreeDsPage(core, id, request),
				origin,
			);
		return methodNotAllowed("GET, POST");
	}
	if (path === `${DEMO_SHOP_PATH}/ipn`)
		return request.method === "POST" ? jsonResponse(await acknowledgeDemoIpn(core, request)) : methodNotAllowed("POST");
	if ((path === DEMO_SHOP_PATH || path.startsWith(`${DEMO_SHOP_PATH}/`)) && request.method === "GET")
		return pageResponse(showDemoShopPage(core, path.slice(DEMO_SHOP_PATH.length + 1), url), origin);
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
	const base = origin ?? url.origin;
	let response: Routed;
	try {
		response = await dispatch(core, request, url, base);
	} catch (error) {
		// Details stay out of the answer; the event gets a redacted message.
		core.emit({ type: "error", message: redactText(error instanceof Error ? error.message : String(error)) });
		response = jsonResponse({
			status: 500,
			json: { status: "error", message: "The sandbox failed to handle this request." },
		});
	}
	const { detail, ...reply } = response;
	const why = detail === undefined ? {} : { detail };
	core.emit({ type: "request", method: request.method, path: url.pathname, status: reply.status, ...why });
	return reply;
}
