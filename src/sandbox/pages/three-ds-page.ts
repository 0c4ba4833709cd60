import { fromMinorUnits } from "../../money/amount.js";
import type { SandboxCore } from "../core.js";
import { awaitsThreeDs } from "../ledger.js";
import type { PageForm } from "../page-form.js";
import type { TransactionRecord } from "../state.js";
import { threeDsPasswords } from "../test-cards.js";
import { linkedTransaction } from "./checkout-page.js";
import { escapeHtml, html, notice, type PageReply, seeOther } from "./html.js";

const unknownLink = () =>
	notice(404, "Unknown authentication link", "This 3-D Secure link does not exist or is incomplete.");
const notWaiting = (status: string) =>
	notice(409, "Nothing to authenticate", `This payment is ${status}; it is not waiting for 3-D Secure.`);

function render(record: TransactionRecord, error?: string): PageReply {
	const amount = `${fromMinorUnits(record.amountMinor).toFixed(2)} ${record.currency}`;
	const token = `<input type="hidden" name="token" value="${record.pageToken}">`;
	const action = `/3ds/${record.transactionId}`;
	const { pass, fail } = threeDsPasswords;
	const body = `<div class="banner">Sandbox 3-D Secure: <code>${pass}</code> passes, <code>${fail}</code> fails.</div>
<header><h1>Confirm your payment</h1></header>
<div class="amount">${escapeHtml(amount)}</div>
<p>Card ending ${escapeHtml(record.card?.lastFourDigits ?? "")}</p>
${error ? `<div class="error" role="alert">${escapeHtml(error)}</div>` : ""}
<form method="post" action="${action}">
${token}
<label for="password">3-D Secure password</label>
<input id="password" name="password" type="password" autocomplete="one-time-code">
<button type="submit" id="submit-password">Submit</button>
</form>
<form method="post" action="${action}" class="choices">
${token}
<button type="submit" class="secondary" name="result" value="pass" id="authenticate">Authenticate</button>
<button type="submit" class="secondary" name="result" value="fail" id="fail-authentication">Fail authentication</button>
</form>`;
	return html(error ? 422 : 200, "3-D Secure", body);
}

/** GET /3ds/:id: the sandbox's stand-in for the issuer's 3-D Secure challenge. */
export function showThreeDsPage(core: SandboxCore, id: string, url: URL): PageReply {
	const record = linkedTransaction(core, id, url.searchParams.get("token"));
	if (!record) return unknownLink();
	if (!awaitsThreeDs(record)) return notWaiting(record.status);
	return render(record);
}

/**
 * POST /3ds/:id: the outcome, then the IPN and the redirect to the merchant.
 * The buyer types the gateway guide's password (`password`: 123456 passes,
 * 111111 fails), or presses a shortcut (`result`: pass or fail).
 */
export function submitThreeDsPage(core: SandboxCore, id: string, form: PageForm): PageReply {
	const record = linkedTransaction(core, id, form.get("token"));
	if (!record) return unknownLink();
	if (!awaitsThreeDs(record)) return notWaiting(record.status);
	const password = form.get("password");
	const result = password === undefined ? form.get("result") : passwordResult(password);
	if (result !== "pass" && result !== "fail") {
		const hint = `Enter the sandbox password: ${threeDsPasswords.pass} passes, ${threeDsPasswords.fail} fails.`;
		const problem = password === undefined ? "Choose Authenticate or Fail authentication." : "Wrong password.";
		return render(record, `${problem} ${hint}`);
	}
	const completed = core.ledger.completeThreeDs(id, result === "pass");
	return completed.ok ? seeOther(core.browserRedirect(completed.value)) : notWaiting(record.status);
}

function passwordResult(password: string): "pass" | "fail" | undefined {
	if (password === threeDsPasswords.pass) return "pass";
	if (password === threeDsPasswords.fail) return "fail";
	return undefined;
}
