import { escapeHtml } from "../../internal/escape-html.js";
import { DEFAULT_THEME, type Theme } from "./theme.js";

/** Server-rendered HTML for the sandbox's pages: inline styles only, nothing fetched from elsewhere. */

export { escapeHtml };

/** An HTML response. */
export interface PageResponse {
	status: number;
	html?: string | undefined;
	/** Where a 303 sends the browser. */
	location?: string | undefined;
}

/** Fixed colours, each checked for AA contrast on the background it sits on (test/sandbox/pages.test.ts). */
const INK = "#1b1f24";
const MUTED = "#4a4f57";
const ERROR_INK = "#a4161a";

/** A page with the sandbox's styles, in the given colours. */
export function html(status: number, title: string, body: string, theme: Theme = DEFAULT_THEME): PageResponse {
	const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;
background:${theme.background};color:${theme.onBackground}}
main{max-width:30rem;margin:2rem auto;background:#fff;color:${INK};border-radius:12px;
box-shadow:0 2px 12px rgba(0,0,0,.08);padding:1.5rem 1.75rem}
@media (max-width:32rem){main{margin:0;border-radius:0;padding:1.25rem 1rem}}
header{display:flex;align-items:center;gap:.75rem;border-bottom:3px solid ${theme.primary};
padding-bottom:.75rem;margin-bottom:1rem}
header img{max-height:40px;max-width:120px}
h1{font-size:1.15rem;margin:0;color:${theme.accent}}
h2{font-size:1.05rem;margin:.5rem 0}
a{color:${theme.accent}}
.amount{font-size:1.9rem;font-weight:700;margin:.25rem 0}
.description{white-space:pre-wrap;color:${MUTED}}
.banner{background:#fff4ce;color:${INK};border:1px solid #e0c060;border-radius:6px;padding:.4rem .6rem;
font-size:.85rem;margin-bottom:1rem}
.error{background:#fde7e9;color:${INK};border:1px solid #d1242f;border-radius:6px;padding:.5rem .7rem;margin:.75rem 0}
.field-error{color:${ERROR_INK};font-size:.85rem;margin:.2rem 0 0}
.hint{color:${MUTED};font-size:.8rem;margin:.2rem 0 0}
label{display:block;font-size:.85rem;margin-top:.6rem}
input{width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #8a9099;border-radius:6px;font:inherit;
color:${INK};background:#fff}
input::placeholder{color:#6b7079}
input[aria-invalid=true]{border:2px solid ${ERROR_INK}}
.row{display:flex;gap:.5rem}.row>div{flex:1}
button{margin-top:.9rem;width:100%;padding:.65rem;border:0;border-radius:6px;font:inherit;font-weight:600;
cursor:pointer;background:${theme.primary};color:${theme.onPrimary}}
button.secondary{background:#fff;color:${INK};border:1px solid #6b7079;font-weight:400;padding:.5rem}
.choices{display:flex;flex-wrap:wrap;gap:.5rem}.choices button{flex:1 1 8rem}
.choices .hint{flex-basis:100%;margin:.9rem 0 0}.choices .hint+button,.choices .hint~button{margin-top:0}
.back{display:inline-block;margin-top:1rem}
table{border-collapse:collapse;font-size:.85rem;margin-top:.5rem;width:100%}
th{text-align:left;font-weight:600}td,th{border-top:1px solid #e3e5e8;padding:.25rem .3rem;vertical-align:top}
.help{margin-top:1.5rem}.help p{font-size:.9rem}
code{font-size:.85rem}
.card-number{white-space:nowrap}
</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
	return { status, html: page };
}

export const seeOther = (location: string): PageResponse => ({ status: 303, location });

/** A plain message page with no merchant behind it (the sandbox's own 404). */
export function notice(status: number, title: string, text: string): PageResponse {
	return html(status, title, `<header><h1>${escapeHtml(title)}</h1></header><p>${escapeHtml(text)}</p>`);
}
