import { beforeEach, describe, expect, test } from "vitest";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import { Ledger } from "../../src/sandbox/books/ledger.js";
import type { LedgerChange, NewTransaction } from "../../src/sandbox/books/ledger-types.js";
import { type MerchantAccount, MerchantRegistry } from "../../src/sandbox/books/merchants.js";
import { keys } from "../support/vectors.js";

// The ledger alone, without HTTP: each command returns its result or the rule it refused on.

const START = Date.parse("2030-01-01T10:00:00Z");
const APPROVED = { number: "4000000000000010", month: "12", year: "39", name: "Ada" };
const THREE_DS = { ...APPROVED, number: "4000000000000036" };
const PENDING = { ...APPROVED, number: "4000000000000044" };

let clock: ControllableClock;
let merchants: MerchantRegistry;
let ledger: Ledger;
let changes: string[];
let shop: MerchantAccount;
let n = 0;

beforeEach(() => {
	clock = new ControllableClock(START);
	merchants = new MerchantRegistry();
	changes = [];
	const describeChange = (change: LedgerChange) =>
		change.kind === "transaction"
			? `${change.transaction.orderRef}:${change.transaction.status}${change.final ? ":final" : ""}`
			: `${change.transaction.orderRef}:${change.refund.status}`;
	ledger = new Ledger({
		clock,
		merchants,
		pendingDelayMs: 5_000,
		onChange: (c) => void changes.push(describeChange(c)),
	});
	shop = merchants.add({ merchantId: "shop", publicKey: keys.merchantPublic, allowedDomains: ["shop.example"] });
});

const order = (overrides: Partial<NewTransaction> = {}): NewTransaction => ({
	merchant: shop,
	orderRef: `order-${++n}`,
	currency: "EUR",
	amount: 100,
	request: {
		orderDescription: "Tickets",
		paymentMethod: "checkout",
		callbackUrl: "https://shop.example/callback",
		notificationUrl: "https://shop.example/ipn",
		cancelUrl: "https://shop.example/cancel",
		errorUrl: "https://shop.example/error",
		feeBySeller: 100,
	},
	site: { field: "callbackUrl", url: "https://shop.example/callback" },
	...overrides,
});

function paid(): string {
	const charged = ledger.chargeCard(order(), APPROVED);
	if (!charged.ok) throw new Error(charged.violation.rule);
	return charged.value.transaction.transactionId;
}

describe("opening transactions", () => {
	test("a checkout session opens incomplete, expiring a day later; its orderRef cannot be used again", () => {
		const first = order();
		const opened = ledger.openCheckout(first);
		expect(opened.ok && opened.value).toMatchObject({ status: "incomplete", channel: "checkout" });
		expect(opened.ok && opened.value.expiresAt?.getTime()).toBe(START + 86_400_000);
		expect(ledger.openCheckout({ ...first })).toEqual({ ok: false, violation: { rule: "order_ref_taken" } });
		expect(changes).toEqual([`${first.orderRef}:incomplete`]);
	});

	test("an expiry not after now, and a site off the allowed domains, are refused naming the rule", () => {
		const now = new Date(START);
		expect(ledger.openCheckout(order({ expiresAt: now }))).toEqual({
			ok: false,
			violation: { rule: "expiry_not_in_future" },
		});
		const site = { field: "websiteUrl" as const, url: "https://elsewhere.example/" };
		expect(ledger.chargeCard(order({ site }), APPROVED)).toEqual({
			ok: false,
			violation: { rule: "domain_not_allowed", field: "websiteUrl" },
		});
		expect(changes).toEqual([]);
	});

	test("a merchant with hosted-page providers only cannot take an S2S charge", () => {
		const hpp = merchants.add({
			merchantId: "hpp",
			publicKey: keys.merchantPublic,
			providers: [{ name: "H", kind: "hpp" }],
		});
		expect(ledger.chargeCard(order({ merchant: hpp }), APPROVED)).toEqual({
			ok: false,
			violation: { rule: "no_s2s_provider" },
		});
	});
});

describe("time on the sandbox clock", () => {
	test("an unpaid session expires when the clock reaches expiresAt, with its final change", () => {
		const opened = ledger.openCheckout(order({ orderRef: "expiring" }));
		const id = opened.ok ? opened.value.transactionId : "";
		clock.advance(86_400_000 - 1);
		expect(ledger.transaction(id)?.status).toBe("incomplete");
		clock.advance(1);
		expect(ledger.transaction(id)?.status).toBe("expired");
		expect(changes).toEqual(["expiring:incomplete", "expiring:expired:final"]);
		expect(ledger.cancelOnPage(id)).toEqual({
			ok: false,
			violation: { rule: "session_closed", status: "expired", awaitingThreeDs: false },
		});
	});

	test("a pending charge settles pendingDelayMs later", () => {
		const charged = ledger.chargeCard(order({ orderRef: "slow" }), PENDING);
		expect(charged.ok && charged.value.decision.kind).toBe("pending");
		clock.advance(5_000);
		expect(changes).toEqual(["slow:incomplete", "slow:pending", "slow:successful:final"]);
	});
});

describe("3-D Secure and the hosted page", () => {
	test("a 3DS charge waits for the buyer; the page is closed meanwhile; completing twice is refused", () => {
		const opened = ledger.openCheckout(order());
		const id = opened.ok ? opened.value.transactionId : "";
		const charged = ledger.payOnPage(id, THREE_DS);
		expect(charged.ok && charged.value.decision.kind).toBe("three_ds");
		expect(ledger.failOnPage(id)).toMatchObject({
			ok: false,
			violation: { rule: "session_closed", awaitingThreeDs: true },
		});
		expect(ledger.completeThreeDs(id, true)).toMatchObject({ ok: true, value: { status: "successful" } });
		expect(ledger.completeThreeDs(id, true)).toEqual({
			ok: false,
			violation: { rule: "not_awaiting_three_ds", status: "successful" },
		});
	});
});

describe("refunds", () => {
	test("only a successful transaction of the merchant's own is refunded, up to what is left", () => {
		const opened = ledger.openCheckout(order());
		const unpaid = opened.ok ? opened.value.transactionId : "";
		expect(ledger.refundPayment("shop", unpaid, 100, undefined)).toEqual({
			ok: false,
			violation: { rule: "not_refundable", status: "incomplete" },
		});
		const id = paid();
		expect(ledger.refundPayment("other", id, 100, undefined)).toEqual({
			ok: false,
			violation: { rule: "unknown_transaction" },
		});
		expect(ledger.refundPayment("shop", id.toUpperCase(), 6_000, "size")).toMatchObject({ ok: true });
		expect(ledger.refundPayment("shop", id, 4_001, undefined)).toEqual({
			ok: false,
			violation: { rule: "exceeds_refundable", remainingMinor: 4_000, currency: "EUR" },
		});
		expect(ledger.refundPayment("shop", id, 4_000, undefined)).toMatchObject({ ok: true });
		expect(ledger.refundPayment("shop", id, 10, undefined)).toEqual({
			ok: false,
			violation: { rule: "nothing_left_to_refund" },
		});
	});

	test("a held refund reserves its amount until rejected; only one under review can be decided", () => {
		shop = merchants.add({ merchantId: "manual", publicKey: keys.merchantPublic, refundApproval: "manual" });
		const id = paid();
		const held = ledger.refundPayment("manual", id, 10_000, undefined);
		const refundId = held.ok ? held.value.refundId : "";
		expect(held.ok && held.value.status).toBe("refund_under_review");
		expect(ledger.refundPayment("manual", id, 1, undefined)).toMatchObject({ ok: false });
		expect(ledger.decideRefund(refundId, false, "No.")).toMatchObject({ ok: true, value: { status: "refund_failed" } });
		expect(ledger.decideRefund(refundId, true)).toEqual({
			ok: false,
			violation: { rule: "not_under_review", status: "refund_failed" },
		});
		expect(ledger.decideRefund("01k0svjxa7rxj0wwz0cqb85r6a", true)).toEqual({
			ok: false,
			violation: { rule: "unknown_refund" },
		});
		expect(ledger.refundPayment("manual", id, 10_000, undefined)).toMatchObject({ ok: true });
	});

	test("a full-refund-only provider takes exactly the paid amount, once", () => {
		shop = merchants.add({
			merchantId: "full",
			publicKey: keys.merchantPublic,
			providers: [{ name: "Whole", fullRefundOnly: true }],
		});
		const id = paid();
		expect(ledger.refundPayment("full", id, 5_000, undefined)).toEqual({
			ok: false,
			violation: { rule: "full_refund_only", paidMinor: 10_000, currency: "EUR" },
		});
		expect(ledger.refundPayment("full", id, 10_000, undefined)).toMatchObject({ ok: true });
		expect(ledger.refundPayment("full", id, 10_000, undefined)).toMatchObject({
			ok: false,
			violation: { rule: "full_refund_only" },
		});
	});
});
