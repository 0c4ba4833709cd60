import { escapeHtml } from "../../internal/escape-html.js";

/** Server-rendered HTML for the sandbox's pages: inline styles only, nothing fetched from elsewhere. */

export { escapeHtml };

/** An HTML answer. */
export interface PageReply {
	status: number;
	html?: string | undefined;
	/** Where a 303 sends the browser. */
	location?: string | undefined;
}

export interface Theme {
	primary: string;
	accent: string;
	background: string;
}

const DEFAULT_THEME: Theme = { primary: "#1f6feb", accent: "#0b3d91", background: "#f5f7fb" };
/** The colors the request schema admits: names, HEX, rgb()/rgba(). Anything else falls back to the default theme. */
const SAFE_COLOR = /^(#[0-9a-f]{3,8}|rgba?\([\d.%\s,/]+\)|[a-z]{3,30})$/i;

/** colorMode: up to three colors joined by `---`: primary, accent, background. */
export function themeFrom(colorMode: string | undefined): Theme {
	const parts = (colorMode ?? "").split("---").map((p) => p.trim());
	const pick = (index: number, fallback: string) => {
		const value = parts[index];
		return value && SAFE_COLOR.test(value) ? value : fallback;
	};
	return {
		primary: pick(0, DEFAULT_THEME.primary),
		accent: pick(1, DEFAULT_THEME.accent),
		background: pick(2, DEFAULT_THEME.background),
	};
}

export function page(title: string, body: string, theme: Theme = DEFAULT_THEME): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;background:${theme.background};color:#1b1f24}
main{max-width:30rem;margin:2rem auto;background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(0,0,0,.08);padding:1.5rem 1.75rem}
header{display:flex;align-items:center;gap:.75rem;border-bottom:3px solid ${theme.primary};padding-bottom:.75rem;margin-bottom:1rem}
header img{max-height:40px;max-width:120px}
h1{font-size:1.15rem;margin:0;color:${theme.accent}}
.amount{font-size:1.9rem;font-weight:700;margin:.25rem 0}
.description{white-space:pre-wrap;color:#444}
.banner{background:#fff4ce;border:1px solid #e0c060;border-radius:6px;padding:.4rem .6rem;font-size:.85rem;margin-bottom:1rem}
.error{background:#fde7e9;border:1px solid #d1242f;border-radius:6px;padding:.5rem .7rem;margin:.75rem 0}
label{display:block;font-size:.85rem;margin-top:.6rem}
input{width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #c8ccd2;border-radius:6px;font:inherit}
.row{display:flex;gap:.5rem}.row>div{flex:1}
button{margin-top:.9rem;width:100%;padding:.65rem;border:0;border-radius:6px;font:inherit;font-weight:600;cursor:pointer;background:${theme.primary};color:#fff}
button.secondary{background:#e9ecf1;color:#1b1f24}
.choices{display:flex;gap:.5rem}.choices button{flex:1}
table{border-collapse:collapse;font-size:.8rem;margin-top:1rem;width:100%}td{border-top:1px solid #eee;padding:.2rem .3rem;vertical-align:top}
code{font-size:.8rem}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

export const html = (status: number, title: string, body: string, theme?: Theme): PageReply => ({
	status,
	html: page(title, body, theme),
});
export const seeOther = (location: string): PageReply => ({ status: 303, location });

/** A plain message page (unknown link, expired session, already paid...). */
export function notice(status: number, title: string, text: string): PageReply {
	return html(status, title, `<header><h1>${escapeHtml(title)}</h1></header><p>${escapeHtml(text)}</p>`);
}
