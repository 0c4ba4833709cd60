import { cardMonth, cardNumber, cardSecurityCode, cardYear } from "../../schemas/fields.js";
import type { CardInput } from "../books/charge-decision.js";
import { formatMoney } from "../books/gateway-formats.js";
import { awaitsThreeDs, pagePath, type TransactionRecord } from "../books/records.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { brandedNotice, brandHeader, brandingOf, shortcutForm } from "./branding.js";
import { escapeHtml, html, type PageResponse, seeOther } from "./html.js";
import type { HostedPage, PageForm } from "./page-link.js";
import { testCardHelp } from "./test-card-help.js";

/** The page for a session that can no longer be paid, with the way back to the shop (its signed callback). */
function closedSession(core: SandboxCore, record: TransactionRecord): PageResponse {
	if (awaitsThreeDs(record)) return seeOther(pagePath("3ds", record));
	if (record.status === "expired")
		return brandedNotice(
			410,
			core,
			record,
			"This payment link has expired",
			"The time to pay this order is over and nothing was charged. Return to the shop to order again.",
		);
	const text: Record<string, string> = {
		successful: "This order is already paid. There is nothing more to do.",
		pending: "This payment is being processed. The shop will let you know when it is confirmed.",
		failed: "This payment did not go through and nothing was charged. Return to the shop to try again.",
		canceled: "This payment was canceled and nothing was charged. Return to the shop to try again.",
	};
	const title = record.status === "successful" ? "Already paid" : "This payment is closed";
	return brandedNotice(409, core, record, title, text[record.status] ?? `This payment is ${record.status}.`);
}

type Field = "cardName" | "cardNumber" | "cardExpiry" | "cardSecurityCode";

/**
 * What the page shows again after a mistake: the name and the expiry as typed, and why each
 * field was refused. The card number and the security code are never written back into the
 * page (nor kept anywhere): the buyer types them again, and the page says so beside them.
 */
interface FormState {
	kept: { cardName: string; cardExpiry: string };
	errors: Partial<Record<Field, string>>;
	/** A problem that belongs to no field. */
	message?: string | undefined;
}

const RE_ENTER = {
	cardNumber: "For your safety the card number is never kept: please type it again.",
	cardSecurityCode: "For your safety the security code is never kept: please type it again.",
} as const;

interface Input {
	name: Field;
	label: string;
	attributes: string;
	/** Shown again after a mistake (never for the card number or the security code). */
	value?: string | undefined;
}

function input(field: Input, state: FormState | undefined, autofocus: boolean): string {
	const error = state?.errors[field.name];
	const hint = state && field.name in RE_ENTER ? RE_ENTER[field.name as keyof typeof RE_ENTER] : undefined;
	const described = [error && `${field.name}-error`, hint && `${field.name}-hint`].filter(Boolean).join(" ");
	const value = field.value ? ` value="${escapeHtml(field.value)}"` : "";
	const invalid = error ? ' aria-invalid="true"' : "";
	const describedBy = described ? ` aria-describedby="${described}"` : "";
	const attributes = `${field.attributes}${value}${invalid}${describedBy}${autofocus ? " autofocus" : ""}`;
	const errorLine = error ? `<p class="field-error" id="${field.name}-error">${escapeHtml(error)}</p>` : "";
	const hintLine = hint ? `<p class="hint" id="${field.name}-hint">${hint}</p>` : "";
	return `<label for="${field.name}">${field.label}</label>
<input id="${field.name}" name="${field.name}" ${attributes}>
${errorLine}${hintLine}`;
}

// The browser checks what it can before posting (and keeps everything typed when it refuses); the
// server checks again, and alone checks the card number's digits (Luhn).
const FIELDS: Record<Field, Omit<Input, "value">> = {
	cardName: { name: "cardName", label: "Name on card", attributes: 'autocomplete="cc-name" maxlength="100"' },
	cardNumber: {
		name: "cardNumber",
		label: "Card number",
		attributes: [
			'inputmode="numeric" autocomplete="cc-number" required maxlength="23"',
			'pattern="([0-9][ \\-]?){11,18}[0-9]" title="12 to 19 digits"',
		].join(" "),
	},
	cardExpiry: {
		name: "cardExpiry",
		label: "Expiry date (MM/YY)",
		attributes: [
			'inputmode="numeric" autocomplete="cc-exp" required maxlength="7" placeholder="MM/YY"',
			'pattern="(0?[1-9]|1[0-2]) ?\\/? ?([0-9]{2}|[0-9]{4})" title="MM/YY, such as 12/30"',
		].join(" "),
	},
	cardSecurityCode: {
		name: "cardSecurityCode",
		label: "Security code (CVC)",
		attributes:
			'inputmode="numeric" autocomplete="cc-csc" required maxlength="4" pattern="[0-9]{3,4}" title="3 or 4 digits"',
	},
};

const SHORTCUTS = [
	["approve", "simulate-success", "Simulate success"],
	["fail", "simulate-failure", "Simulate failure"],
];

function render(core: SandboxCore, record: TransactionRecord, state?: FormState): PageResponse {
	const branding = brandingOf(core, record);
	const action = `/pay/${record.transactionId}`;
	const token = `<input type="hidden" name="token" value="${record.pageToken}">`;
	const order: Field[] = ["cardName", "cardNumber", "cardExpiry", "cardSecurityCode"];
	const amount = escapeHtml(formatMoney(record.amountMinor, record.currency));
	const firstError = order.find((name) => state?.errors[name] !== undefined);
	const field = (name: Field, value?: string) => input({ ...FIELDS[name], value }, state, name === firstError);
	const problems = state && (state.message ?? (firstError && "Please correct the fields marked below."));
	const body = `<div class="banner">Sandbox: no real money moves. Use a test card below, or pick an outcome.</div>
${brandHeader(branding)}
<div class="amount" data-testid="amount">${amount}</div>
<p class="description">${escapeHtml(record.request.orderDescription)}</p>
${problems ? `<div class="error" role="alert" id="form-problems">${escapeHtml(problems)}</div>` : ""}
<form method="post" action="${action}">
${token}
${field("cardName", state?.kept.cardName)}
${field("cardNumber")}
<div class="row"><div>${field("cardExpiry", state?.kept.cardExpiry)}</div>
<div>${field("cardSecurityCode")}</div></div>
<button type="submit" name="action" value="pay" id="pay">Pay ${amount}</button>
</form>
${shortcutForm(action, token, "action", SHORTCUTS, branding.brand)}
${testCardHelp()}`;
	return html(state ? 422 : 200, `Pay ${branding.brand}`, body, branding.theme);
}

const APPROVED_CARD: CardInput = { number: "4000000000000010", month: "12", year: "99", name: null };

/** MM/YY as typed (12/30, 12 / 30, 1230, 12/2030), or cardMonth and cardYear posted separately. */
function expiryOf(form: PageForm): { month: string; year: string; typed: string } {
	const typed = form.get("cardExpiry");
	if (typed === undefined) {
		const month = form.get("cardMonth") ?? "";
		const year = form.get("cardYear") ?? "";
		return { month, year, typed: month || year ? `${month}/${year}` : "" };
	}
	const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(typed);
	const [, month = "", year = ""] = match ?? [];
	const shortMonth = month.length === 1 && !typed.includes("/");
	return {
		month: shortMonth ? "" : month.padStart(2, "0"),
		year: year.slice(-2),
		typed: typed.trim().slice(0, 10),
	};
}

/** The card typed on the page, or the state to show the page again with. */
function enteredCard(form: PageForm): CardInput | FormState {
	const number = (form.get("cardNumber") ?? "").replace(/[\s-]/g, "");
	const expiry = expiryOf(form);
	const cvc = (form.get("cardSecurityCode") ?? "").trim();
	const name = (form.get("cardName") ?? "").trim();
	const errors: FormState["errors"] = {};
	if (!cardNumber().safeParse(number).success)
		errors.cardNumber = number
			? "This card number is not valid. Check the digits and type it again."
			: "Enter the card number.";
	if (!cardMonth().safeParse(expiry.month).success || !cardYear().safeParse(expiry.year).success)
		errors.cardExpiry = expiry.typed
			? "Enter the expiry date as MM/YY, with a month from 01 to 12, such as 12/30."
			: "Enter the expiry date, as MM/YY.";
	if (!cardSecurityCode().safeParse(cvc).success)
		errors.cardSecurityCode = cvc
			? "The security code is the 3 or 4 digits printed on the card."
			: "Enter the security code.";
	if (Object.keys(errors).length > 0)
		return { kept: { cardName: name.slice(0, 100), cardExpiry: expiry.typed }, errors };
	return { number, month: expiry.month, year: expiry.year, name: name || null };
}

/** GET /pay/:id: the hosted checkout page; POST: the buyer paid with a card, or picked an outcome. */
export const checkoutPage: HostedPage = {
	closed: (core, record) => (record.status === "incomplete" ? undefined : closedSession(core, record)),
	show: (core, record) => render(core, record),
	submit,
};

function submit(core: SandboxCore, record: TransactionRecord, form: PageForm): PageResponse {
	const id = record.transactionId;
	const action = form.get("action");
	if (action === "cancel" || action === "fail") {
		const done = action === "cancel" ? core.ledger.cancelOnPage(id) : core.ledger.failOnPage(id);
		return done.ok ? seeOther(core.browserRedirect(done.value)) : closedSession(core, record);
	}
	let card = APPROVED_CARD;
	if (action === "pay") {
		const entered = enteredCard(form);
		if ("errors" in entered) return render(core, record, entered);
		card = entered;
	} else if (action !== "approve") {
		const kept = { cardName: "", cardExpiry: "" };
		return render(core, record, {
			kept,
			errors: {},
			message: "Choose Pay, Simulate success, Simulate failure or Cancel.",
		});
	}
	const charged = core.ledger.payOnPage(id, card);
	if (!charged.ok) return closedSession(core, record);
	if (charged.value.decision.kind === "three_ds") return seeOther(pagePath("3ds", record));
	return seeOther(core.browserRedirect(charged.value.transaction));
}
