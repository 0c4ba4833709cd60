import type { TransactionRecord } from "../books/records.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { mediaType } from "../wire/authentication.js";
import { LIMITS } from "../wire/limits.js";
import { backLink, brandedNotice } from "./branding.js";
import { html, type PageResponse } from "./html.js";

/** The fields of a form posted on a hosted page (the checkout page, the 3DS page). */
export type PageForm = ReadonlyMap<string, string>;

/** A posted page's form fields; anything but a URL-encoded form of reasonable size reads as an empty form. */
export function pageForm(contentType: string | null, text: string): PageForm {
	const isForm = mediaType(contentType) === "application/x-www-form-urlencoded";
	return new Map(isForm && text.length <= LIMITS.pageFormBytes ? new URLSearchParams(text) : []);
}

/** A hosted page a link leads to (`/pay/{id}?token=...`, `/3ds/{id}?token=...`). */
export interface HostedPage {
	/** The page shown instead when the link's transaction is past this page; undefined when it is not. */
	closed(core: SandboxCore, record: TransactionRecord): PageResponse | undefined;
	/** GET: the page itself. */
	show(core: SandboxCore, record: TransactionRecord): PageResponse;
	/** POST: what the buyer chose on it. */
	submit(core: SandboxCore, record: TransactionRecord, form: PageForm): PageResponse;
}

/** A hosted page's response to a GET (no form) or a POST, when the link's token is its transaction's. */
export function openHostedPage(
	core: SandboxCore,
	page: HostedPage,
	id: string,
	url: URL,
	referer: string | null,
	form: PageForm | undefined,
): PageResponse {
	const record = core.ledger.linkedSession(id, form ? form.get("token") : url.searchParams.get("token"));
	if (!record) return unknownLink(core, id, url, referer);
	return page.closed(core, record) ?? (form ? page.submit(core, record, form) : page.show(core, record));
}

const TITLE = "Payment link not found";
const TEXT = "This payment link is incomplete or out of date. Return to the shop and start the payment again.";

/** Where the buyer came from, when that is another site (the shop) and not this sandbox's own pages. */
function cameFrom(referer: string | null, here: URL): string | undefined {
	const from = referer ? URL.parse(referer) : null;
	const elsewhere = (from?.protocol === "https:" || from?.protocol === "http:") && from.origin !== here.origin;
	return elsewhere ? from.href : undefined;
}

/**
 * A link whose transaction or token does not match. A known transaction still shows its
 * merchant's name, colours and the shop's address (all public on the page itself), never the
 * order; an unknown one offers the page the buyer came from, when the browser said.
 */
function unknownLink(core: SandboxCore, id: string, url: URL, referer: string | null): PageResponse {
	const record = core.ledger.transaction(id);
	// The shop's site (the callback URL's origin), for a visitor who did not prove they hold the link.
	if (record) return brandedNotice(404, core, record, TITLE, TEXT, `${new URL(record.request.callbackUrl).origin}/`);
	const back = cameFrom(referer, url);
	const link = back ? backLink(back, "the page you came from") : "";
	return html(404, TITLE, `<header><h1>${TITLE}</h1></header>\n<p>${TEXT}</p>\n${link}`);
}
