import { type FieldIssue, RequestValidationError } from "../errors/request-validation-error.js";
import { escapeHtml } from "../internal/escape-html.js";
import { toFieldIssues } from "../internal/field-issues.js";
import { setMember } from "../internal/plain-object.js";
import { checkoutRequestSchema } from "../schemas/requests.js";
import { safeParse } from "../schemas/safe-parse.js";
import { sealMessage } from "../signing/seal.js";
import type { ClientContext } from "./context.js";

/** Options of `checkout.directPostForm`. */
export interface DirectPostOptions {
	/** CSP nonce for the inline script that submits the form. @default none (no nonce attribute) */
	nonce?: string | undefined;
}

/** What a browser form post to the hosted checkout needs. */
export interface DirectPostForm {
	/** The form's action: `{baseUrl}/v2/checkout`. */
	action: string;
	/** The form's method. */
	method: "POST";
	/** The signed fields, every value a string (nested values as JSON text). */
	fields: Record<string, string>;
	/** A complete HTML page whose form posts itself on load (values escaped). */
	html: string;
}

const LINE_BREAK = /\r\n?|\n/g;

/**
 * The message as a 2.0 form posts it, and the form's strings. The spec does not show how a form post encodes
 * fields. Every value travels as a form string, so the SDK signs exactly those strings: numbers as their JSON
 * text (the canonical form of 2.0 turns numbers into the same strings), nested objects and arrays as JSON text.
 * Browsers submit every line break in a form value as CR LF (HTML's form encoding normalises CR and LF alike),
 * and a 2.0 signature covers the strings as posted: so the strings are signed with CR LF. Nested values travel
 * as JSON text, whose line breaks are escaped, so only top-level strings change (`changed` names them).
 */
function asPosted(message: Record<string, unknown>) {
	const changed: string[] = [];
	const posted: Record<string, unknown> = {};
	const form: Record<string, string> = {};
	for (const [key, value] of Object.entries(message)) {
		let sent = value;
		if (typeof value === "string" && (value.includes("\n") || value.includes("\r"))) {
			sent = value.replace(LINE_BREAK, "\r\n");
			if (sent !== value) changed.push(key);
		}
		setMember(posted, key, sent);
		if (sent !== undefined) setMember(form, key, typeof sent === "string" ? sent : JSON.stringify(sent));
	}
	return { message: posted, form, changed };
}

/** A line break that becomes CR LF counts twice toward a field's length, as it will at the gateway: check again. */
function checkPostedLengths(ctx: ClientContext, path: string, posted: ReturnType<typeof asPosted>): void {
	const result = safeParse(checkoutRequestSchema(ctx), posted.message);
	if (result.success) return;
	const note = " (a form post sends each line break as CR LF, two characters)";
	const issues = toFieldIssues(result.error).map((issue): FieldIssue => {
		if (!posted.changed.includes(issue.field)) return issue;
		return { ...issue, message: issue.message + note };
	});
	throw new RequestValidationError(issues, path);
}

/** @internal Signs a DIRECT_POST form and writes its auto-submitting page. */
export function directPostForm(
	ctx: ClientContext,
	path: string,
	message: Record<string, unknown>,
	options: DirectPostOptions | undefined,
): DirectPostForm {
	const action = ctx.baseUrl + path;
	let fields: Record<string, string>;
	if (ctx.signVersion === "2.1") {
		fields = { ...sealMessage(message, { privateKey: ctx.privateKey, signVersion: "2.1" }) };
	} else {
		const posted = asPosted(message);
		if (posted.changed.length > 0) checkPostedLengths(ctx, path, posted);
		const signed = sealMessage(posted.form, {
			privateKey: ctx.privateKey,
			signVersion: "2.0",
			signedString: ctx.signedString,
		});
		fields = signed as Record<string, string>;
	}
	const inputs = Object.entries(fields)
		.map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
		.join("\n");
	const nonce = options?.nonce ? ` nonce="${escapeHtml(options.nonce)}"` : "";
	const html = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Redirecting to payment…</title></head>
<body>
<form id="merchant-gateway-direct-post" method="post" action="${escapeHtml(action)}" accept-charset="UTF-8">
${inputs}
<noscript><button type="submit">Continue to payment</button></noscript>
</form>
<script${nonce}>document.getElementById("merchant-gateway-direct-post").submit();</script>
</body>
</html>
`;
	ctx.observer.log("debug", `DIRECT_POST form for ${path} signed (${ctx.signVersion})`);
	return { action, method: "POST", fields, html };
}
