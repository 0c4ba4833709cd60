import { escapeHtml } from "../internal/escape-html.js";
import { redactText } from "../internal/redact.js";
import type { SandboxReply } from "./exchange.js";
import { html, type PageReply } from "./pages/html.js";
import type { ApiReply } from "./replies.js";

/** A reply, and why the request was refused when the answer itself cannot say (for the request event). */
export type Routed = SandboxReply & { detail?: string | undefined };

const PAGE_HEADERS = {
	"content-type": "text/html; charset=utf-8",
	"cache-control": "no-store",
	// Nothing but the page's own inline styles (and the merchant's logo) may load.
	"content-security-policy":
		"default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
};

/** An API reply as JSON. */
export function jsonReply(reply: ApiReply, extraHeaders: Record<string, string> = {}): Routed {
	return {
		status: reply.status,
		headers: { "content-type": "application/json", ...extraHeaders },
		body: JSON.stringify(reply.json),
		detail: reply.detail && redactText(reply.detail),
	};
}

/** A page, or a 303 to `location` resolved against the sandbox's origin. */
export function pageReply(reply: PageReply, origin: string): SandboxReply {
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
export function formErrorPage(reply: ApiReply): PageReply {
	const errors = Array.isArray(reply.json.errors) ? (reply.json.errors as { field: string; message: string[] }[]) : [];
	const items = errors
		.map((e) => `<li><code>${escapeHtml(e.field)}</code>: ${escapeHtml(e.message.join(", "))}</li>`)
		.join("");
	const message = escapeHtml(String(reply.json.message ?? ""));
	const body = `<header><h1>Checkout refused</h1></header><p>${message}</p><ul>${items}</ul>`;
	return html(reply.status, "Checkout refused", body);
}

export const methodNotAllowed = (allow: string): Routed =>
	jsonReply({ status: 405, json: { status: "error", message: `Method not allowed; use ${allow}.` } }, { allow });
