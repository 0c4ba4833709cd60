import type { SandboxCore } from "../core/sandbox-core.js";
import { brandedNotice, brandingOf, shopHome } from "./branding.js";
import { escapeHtml, html, type PageResponse } from "./html.js";

const TITLE = "Payment link not found";
const TEXT = "This payment link is incomplete or out of date. Return to the shop and start the payment again.";

/** Where the buyer came from, when that is another site (the shop) and not this sandbox's own pages. */
function cameFrom(referer: string | null | undefined, here: URL): string | undefined {
	if (!referer) return undefined;
	try {
		const from = new URL(referer);
		return (from.protocol === "https:" || from.protocol === "http:") && from.origin !== here.origin
			? from.href
			: undefined;
	} catch {
		return undefined;
	}
}

/**
 * A link whose transaction or token does not match. A known transaction still shows its
 * merchant's name, colours and the shop's address (all public on the page itself), never the
 * order; an unknown one offers the page the buyer came from, when the browser said.
 */
export function unknownLink(core: SandboxCore, id: string, url: URL, referer: string | null | undefined): PageResponse {
	const record = core.ledger.transaction(id);
	if (record) return brandedNotice(404, brandingOf(core, record), TITLE, TEXT, shopHome(record));
	const back = cameFrom(referer, url);
	const link = back
		? `<a class="back" id="back-to-shop" href="${escapeHtml(back)}">Return to the page you came from</a>`
		: "";
	return html(404, TITLE, `<header><h1>${TITLE}</h1></header>\n<p>${TEXT}</p>\n${link}`);
}
