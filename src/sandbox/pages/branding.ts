import type { TransactionRecord } from "../books/records.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { escapeHtml, html, type PageResponse } from "./html.js";
import { type Theme, themeFrom } from "./theme.js";

/** What a page shows of the merchant: name, logo, colours, and the way back to the shop. */
export interface Branding {
	brand: string;
	/** Only https:, http: and data:image URLs; anything else is left out. */
	logo: string | undefined;
	theme: Theme;
}

/** The merchant's branding for a transaction: the request's overrides, else the account's. */
export function brandingOf(core: SandboxCore, record: TransactionRecord): Branding {
	const merchant = core.merchants.of(record);
	const logo = record.request.logoSource ?? merchant.logoSource;
	return {
		brand: record.request.brandName ?? merchant.brandName,
		logo: logo && /^(https?:|data:image\/)/i.test(logo) ? logo : undefined,
		theme: themeFrom(record.request.colorMode),
	};
}

/** The page header: logo and the merchant's name as the page's heading. */
export function brandHeader(branding: Branding): string {
	const logo = branding.logo ? `<img src="${escapeHtml(branding.logo)}" alt="">` : "";
	return `<header>${logo}<h1>${escapeHtml(branding.brand)}</h1></header>`;
}

/** A link back to the shop (`to` names it), or to the page the buyer came from. */
export function backLink(href: string, to: string): string {
	return `<a class="back" id="back-to-shop" href="${escapeHtml(href)}">Return to ${escapeHtml(to)}</a>`;
}

/** A message page about a transaction in its merchant's colours, with the way back (its redirect to the shop). */
export function brandedNotice(
	status: number,
	core: SandboxCore,
	record: TransactionRecord,
	title: string,
	text: string,
	back = core.browserRedirect(record),
): PageResponse {
	const branding = brandingOf(core, record);
	const body = `${brandHeader(branding)}
<h2>${escapeHtml(title)}</h2>
<p>${escapeHtml(text)}</p>
${backLink(back, branding.brand)}`;
	return html(status, `${title} - ${branding.brand}`, body, branding.theme);
}

/** The sandbox's shortcut buttons below a page's form (`[value, id, label]` each), then the way back to the shop. */
export function shortcutForm(action: string, head: string, name: string, buttons: string[][], brand: string): string {
	const all = [...buttons, ["cancel", "cancel", `Cancel and return to ${escapeHtml(brand)}`]];
	const shown = all.map(
		([value, id, label]) =>
			`<button type="submit" class="secondary" name="${name}" value="${value}" id="${id}">${label}</button>`,
	);
	return `<form method="post" action="${action}" class="choices">\n${head}\n${shown.join("\n")}\n</form>`;
}
