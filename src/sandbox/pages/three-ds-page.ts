import { formatMoney } from "../books/gateway-formats.js";
import { awaitsThreeDs, type TransactionRecord } from "../books/records.js";
import { threeDsPasswords } from "../books/test-cards.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { brandedNotice, brandHeader, brandingOf, shortcutForm } from "./branding.js";
import { escapeHtml, html, type PageResponse, seeOther } from "./html.js";
import type { HostedPage, PageForm } from "./page-link.js";

function notWaiting(core: SandboxCore, record: TransactionRecord): PageResponse {
	const text = "This payment is not waiting for a 3-D Secure confirmation any more.";
	return brandedNotice(409, core, record, "Nothing to confirm", text);
}

const SHORTCUTS = [
	["pass", "authenticate", "Authenticate without the password"],
	["fail", "fail-authentication", "Fail authentication"],
];

/** Renders the challenge; a refused password is never written back into the page. */
function render(core: SandboxCore, record: TransactionRecord, error?: string): PageResponse {
	const branding = brandingOf(core, record);
	const amount = formatMoney(record.amountMinor, record.currency);
	const token = `<input type="hidden" name="token" value="${record.pageToken}">`;
	const action = `/3ds/${record.transactionId}`;
	const { pass, fail } = threeDsPasswords;
	const invalid = error ? ' aria-invalid="true" aria-describedby="password-error" autofocus' : "";
	const body = `<div class="banner">Sandbox 3-D Secure: the password <code>${pass}</code> confirms the payment,
<code>${fail}</code> makes it fail.</div>
${brandHeader(branding)}
<h2>Confirm your payment</h2>
<div class="amount">${escapeHtml(amount)}</div>
<p>Your bank asks you to confirm this payment with the card ending ${escapeHtml(record.card?.lastFourDigits ?? "")}.</p>
<form method="post" action="${action}">
${token}
<label for="password">3-D Secure password</label>
<input id="password" name="password" type="password" autocomplete="one-time-code" required${invalid}>
${error ? `<p class="field-error" id="password-error" role="alert">${escapeHtml(error)}</p>` : ""}
<button type="submit" id="submit-password">Confirm</button>
</form>
${shortcutForm(action, `${token}\n<p class="hint">Sandbox shortcuts:</p>`, "result", SHORTCUTS, branding.brand)}`;
	return html(error ? 422 : 200, `Confirm your payment - ${branding.brand}`, body, branding.theme);
}

/**
 * GET /3ds/:id: the sandbox's stand-in for the issuer's 3-D Secure challenge. POST: the outcome, then the
 * IPN and the redirect to the merchant. The buyer types the gateway guide's password (`password`: 123456
 * passes, 111111 fails), or presses a shortcut (`result`: pass, fail or cancel; cancel ends the payment as
 * canceled and returns the buyer to cancelUrl).
 */
export const threeDsPage: HostedPage = {
	closed: (core, record) => (awaitsThreeDs(record) ? undefined : notWaiting(core, record)),
	show: (core, record) => render(core, record),
	submit,
};

function submit(core: SandboxCore, record: TransactionRecord, form: PageForm): PageResponse {
	const id = record.transactionId;
	const password = form.get("password");
	const result =
		password === undefined
			? form.get("result")
			: (["pass", "fail"] as const).find((outcome) => threeDsPasswords[outcome] === password);
	if (result !== "pass" && result !== "fail" && result !== "cancel") {
		const problem =
			password === undefined
				? "Choose Authenticate without the password, Fail authentication or Cancel."
				: password === ""
					? "Enter your 3-D Secure password."
					: "That password is wrong. Please type it again.";
		return render(core, record, problem);
	}
	const done = result === "cancel" ? core.ledger.cancelThreeDs(id) : core.ledger.completeThreeDs(id, result === "pass");
	return done.ok ? seeOther(core.browserRedirect(done.value)) : notWaiting(core, record);
}
