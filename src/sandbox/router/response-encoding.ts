import { escapeHtml } from "../../internal/escape-html.js";
import { redactText } from "../../internal/redact.js";
import { html, type PageResponse } from "../pages/html.js";
import type { SandboxResponse } from "../wire/request-response.js";
import type { ApiResponse, FieldErrors } from "../wire/spec-responses.js";

/** A response, and why the request was refused when the response itself cannot say (for the request event). */
export type Routed = SandboxResponse & { detail?: string | undefined };

const PAGE_HEADERS = {
	"content-type": "text/html; charset=utf-8",
	"cache-control": "no-store",
	// Nothing but the page's own inline styles (and the merchant's logo) may load.
	"content-security-policy":
		"default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; frame-ancestors 'none'",
	"x-content-type-options": "nosniff",
};

/** An API response as JSON. */
export function jsonResponse(response: ApiResponse, extraHeaders: Record<string, string> = {}): Routed {
	return {
		status: response.status,
		headers: { "content-type": "application/json", ...extraHeaders },
		body: JSON.stringify(response.json),
		detail: response.detail && redactText(response.detail),
	};
}

/** A page, or a 303 to `location` resolved against the sandbox's origin. */
export function pageResponse(page: PageResponse, origin: string): SandboxResponse {
	if (page.location !== undefined) {
		return {
			status: page.status,
			headers: { location: new URL(page.location, origin).href, "cache-control": "no-store" },
			body: "",
		};
	}
	return { status: page.status, headers: PAGE_HEADERS, body: page.html ?? "" };
}

/** A DIRECT_POST form the sandbox refused: the buyer's browser gets a page, not JSON. */
export function formErrorPage(refusal: ApiResponse): PageResponse {
	const errors = Array.isArray(refusal.json.errors) ? (refusal.json.errors as FieldErrors[]) : [];
	const items = errors
		.map((e) => `<li><code>${escapeHtml(e.field)}</code>: ${escapeHtml(e.message.join(", "))}</li>`)
		.join("");
	const message = escapeHtml(String(refusal.json.message ?? ""));
	const body = `<header><h1>Checkout refused</h1></header><p>${message}</p><ul>${items}</ul>`;
	return html(refusal.status, "Checkout refused", body);
}

export const methodNotAllowed = (allow: string): Routed =>
	jsonResponse({ status: 405, json: { status: "error", message: `Method not allowed; use ${allow}.` } }, { allow });
