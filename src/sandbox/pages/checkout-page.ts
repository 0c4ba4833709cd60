import { fromMinorUnits } from "../../money/amount.js";
import { cardMonth, cardNumber, cardSecurityCode, cardYear } from "../../schemas/fields.js";
import type { CardInput } from "../charge.js";
import type { SandboxCore } from "../core.js";
import { awaitsThreeDs } from "../ledger.js";
import type { PageForm } from "../page-form.js";
import type { TransactionRecord } from "../state.js";
import { escapeHtml, html, notice, type PageReply, seeOther, themeFrom } from "./html.js";
import { testCardHelp } from "./test-card-help.js";

/** The link's transaction, if the token matches. */
export function linkedTransaction(
	core: SandboxCore,
	id: string,
	token: string | null | undefined,
): TransactionRecord | undefined {
	return core.ledger.linkedSession(id, token);
}

const unknownLink = () => notice(404, "Unknown payment link", "This payment link does not exist or is incomplete.");

/** Answers for a session that can no longer be paid. */
function closedSession(record: TransactionRecord): PageReply {
	if (awaitsThreeDs(record)) return seeOther(`/3ds/${record.transactionId}?token=${record.pageToken}`);
	if (record.status === "expired")
		return notice(
			410,
			"Session expired",
			"This checkout session has expired. Ask the merchant for a new payment link.",
		);
	return notice(409, "Already processed", `This payment is already ${record.status}.`);
}

function money(record: TransactionRecord): string {
	return `${fromMinorUnits(record.amountMinor).toFixed(2)} ${record.currency}`;
}

function render(core: SandboxCore, record: TransactionRecord, error?: string): PageReply {
	const merchant = core.merchantOf(record);
	const brand = record.request.brandName ?? merchant.brandName;
	const logo = record.request.logoSource ?? merchant.logoSource;
	const logoTag = logo && /^(https?:|data:image\/)/i.test(logo) ? `<img src="${escapeHtml(logo)}" alt="">` : "";
	const action = `/pay/${record.transactionId}`;
	const body = `<div class="banner">Sandbox: no real money moves. Use a test card below, or pick an outcome.</div>
<header>${logoTag}<h1>${escapeHtml(brand)}</h1></header>
<div class="amount" data-testid="amount">${escapeHtml(money(record))}</div>
<p class="description">${escapeHtml(record.request.orderDescription)}</p>
${error ? `<div class="error" role="alert">${escapeHtml(error)}</div>` : ""}
<form method="post" action="${action}">
<input type="hidden" name="token" value="${record.pageToken}">
<label for="cardName">Name on card</label><input id="cardName" name="cardName" autocomplete="cc-name">
<label for="cardNumber">Card number</label><input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number">
<div class="row"><div><label for="cardMonth">Month (MM)</label><input id="cardMonth" name="cardMonth" inputmode="numeric" maxlength="2"></div>
<div><label for="cardYear">Year (YY)</label><input id="cardYear" name="cardYear" inputmode="numeric" maxlength="2"></div>
<div><label for="cardSecurityCode">CVC</label><input id="cardSecurityCode" name="cardSecurityCode" inputmode="numeric" maxlength="4" autocomplete="cc-csc"></div></div>
<button type="submit" name="action" value="pay" id="pay">Pay ${escapeHtml(money(record))}</button>
</form>
<form method="post" action="${action}" class="choices">
<input type="hidden" name="token" value="${record.pageToken}">
<button type="submit" class="secondary" name="action" value="approve" id="simulate-success">Simulate success</button>
<button type="submit" class="secondary" name="action" value="fail" id="simulate-failure">Simulate failure</button>
<button type="submit" class="secondary" name="action" value="cancel" id="cancel">Cancel</button>
</form>
${testCardHelp()}`;
	return html(error ? 422 : 200, `Pay ${brand}`, body, themeFrom(record.request.colorMode));
}

/** GET /pay/:id: the hosted checkout page. */
export function showCheckoutPage(core: SandboxCore, id: string, url: URL): PageReply {
	const record = linkedTransaction(core, id, url.searchParams.get("token"));
	if (!record) return unknownLink();
	if (record.status !== "incomplete") return closedSession(record);
	return render(core, record);
}

const APPROVED_CARD: CardInput = { number: "4000000000000010", month: "12", year: "99", name: null };

/** POST /pay/:id: the buyer paid with a card, or picked an outcome. */
export function submitCheckoutPage(core: SandboxCore, id: string, form: PageForm): PageReply {
	const record = linkedTransaction(core, id, form.get("token"));
	if (!record) return unknownLink();
	if (record.status !== "incomplete") return closedSession(record);
	const action = form.get("action");
	if (action === "cancel" || action === "fail") {
		const done = action === "cancel" ? core.ledger.cancelOnPage(id) : core.ledger.failOnPage(id);
		return done.ok ? seeOther(core.browserRedirect(done.value)) : closedSession(record);
	}
	let card = APPROVED_CARD;
	if (action === "pay") {
		const number = (form.get("cardNumber") ?? "").replace(/[\s-]/g, "");
		const entered = {
			number,
			month: form.get("cardMonth") ?? "",
			year: form.get("cardYear") ?? "",
			cvc: form.get("cardSecurityCode") ?? "",
		};
		const problems = [
			cardNumber().safeParse(entered.number).success
				? undefined
				: "Card number: 12 to 19 digits passing the Luhn check.",
			cardMonth().safeParse(entered.month).success ? undefined : "Month: two digits from 01 to 12.",
			cardYear().safeParse(entered.year).success ? undefined : "Year: two digits.",
			cardSecurityCode().safeParse(entered.cvc).success ? undefined : "CVC: 3 or 4 digits.",
		].filter((p): p is string => p !== undefined);
		if (problems.length > 0) return render(core, record, problems.join(" "));
		card = { number, month: entered.month, year: entered.year, name: (form.get("cardName") ?? "").trim() || null };
	} else if (action !== "approve") {
		return render(core, record, "Choose Pay, Simulate success, Simulate failure or Cancel.");
	}
	const charged = core.ledger.payOnPage(id, card);
	if (!charged.ok) return closedSession(record);
	if (charged.value.decision.kind === "three_ds") {
		return seeOther(`/3ds/${record.transactionId}?token=${record.pageToken}`);
	}
	return seeOther(core.browserRedirect(charged.value.transaction));
}
