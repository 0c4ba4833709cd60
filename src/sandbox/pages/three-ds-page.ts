import { fromMinorUnits } from "../../money/amount.js";
import type { SandboxCore } from "../core.js";
import type { SandboxRequest } from "../exchange.js";
import { linkedTransaction } from "./checkout-page.js";
import { escapeHtml, formFields, html, notice, type PageReply, seeOther } from "./html.js";

const unknownLink = () => notice(404, "Unknown authentication link", "This 3-D Secure link does not exist or is incomplete.");
const notWaiting = (status: string) => notice(409, "Nothing to authenticate", `This payment is ${status}; it is not waiting for 3-D Secure.`);

/** GET /3ds/:id: the sandbox's stand-in for the issuer's 3-D Secure challenge. */
export function showThreeDsPage(core: SandboxCore, id: string, url: URL): PageReply {
	const record = linkedTransaction(core, id, url.searchParams.get("token"));
	if (!record) return unknownLink();
	if (record.status !== "awaiting_3ds") return notWaiting(record.status);
	const amount = `${fromMinorUnits(record.amountMinor).toFixed(2)} ${record.currency}`;
	const body = `<div class="banner">Sandbox 3-D Secure: choose how the buyer's authentication ends.</div>
<header><h1>Confirm your payment</h1></header>
<div class="amount">${escapeHtml(amount)}</div>
<p>Card ending ${escapeHtml(record.card?.lastFourDigits ?? "")}</p>
<form method="post" action="/3ds/${record.transactionId}" class="choices">
<input type="hidden" name="token" value="${record.pageToken}">
<button type="submit" name="result" value="pass" id="authenticate">Authenticate</button>
<button type="submit" class="secondary" name="result" value="fail" id="fail-authentication">Fail authentication</button>
</form>`;
	return html(200, "3-D Secure", body);
}

/** POST /3ds/:id: the outcome, then the IPN and the redirect to the merchant. */
export async function submitThreeDsPage(core: SandboxCore, id: string, request: SandboxRequest): Promise<PageReply> {
	const form = await formFields(request);
	const record = linkedTransaction(core, id, form.get("token"));
	if (!record) return unknownLink();
	if (record.status !== "awaiting_3ds") return notWaiting(record.status);
	const result = form.get("result");
	if (result !== "pass" && result !== "fail") return notice(422, "Choose an outcome", "Choose Authenticate or Fail authentication.");
	core.completeThreeDs(record, result === "pass");
	return seeOther(core.browserRedirect(record));
}
