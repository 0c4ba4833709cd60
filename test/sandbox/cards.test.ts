import { describe, expect, test } from "vitest";
import { luhnValid } from "../../src/internal/luhn.js";
import { openCallbackUrl, openMessage } from "../../src/signing/index.js";
import { testCards } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import type { SandboxServer } from "./helpers.js";
import { cardFields, checkoutFields, MERCHANT_ID, postForm, signedPost, useSandboxFixture } from "./helpers.js";

type Server = SandboxServer;
const fixture = useSandboxFixture();
const { sandbox } = fixture;
const gateway = { publicKey: keys.gatewayPublic };

const charge = (
	server: Server,
	card: string,
	overrides: Record<string, unknown> = {},
	signVersion: "2.0" | "2.1" = "2.0",
) => signedPost(server.url, "/v2/card/api", cardFields(fixture.receiver.url, card, overrides), { signVersion });

async function ipnFor(server: Server, transactionId: string) {
	await server.sandbox.whenIdle();
	return fixture.receiver.ipns
		.map((r) => openMessage(r.body, gateway))
		.filter((f) => f.transactionId === transactionId);
}

test("every documented test card is Luhn-valid and distinct", () => {
	for (const card of testCards) expect(luhnValid(card.number), card.number).toBe(true);
	expect(new Set(testCards.map((c) => c.number)).size).toBe(testCards.length);
});

describe("the gateway guide's sandbox cards, next to ours", () => {
	const guide = { cardMonth: "12", cardYear: "30", cardSecurityCode: "123" };

	test("4242424242424242 (12/30, CVV 123) is approved over S2S: successful (6)", async () => {
		const server = await sandbox();
		const response = await charge(server, "4242424242424242", guide);
		expect(response.json).toMatchObject({
			status: "success",
			message: "The transaction has been successfully completed.",
		});
		const transactionId = String(openMessage(response.json, gateway).transactionId);
		const [ipn] = await ipnFor(server, transactionId);
		expect(ipn).toMatchObject({ status: "successful", statusCode: 6 });
	});

	test("4000000000001018 (12/30, CVV 123) is declined over S2S: HTTP 400, failed (4)", async () => {
		const server = await sandbox();
		const response = await charge(server, "4000000000001018", guide);
		expect(response.status).toBe(400);
		expect(response.json).toMatchObject({ status: "error", data: { transactionId: expect.any(String) } });
		const transactionId = String((response.json.data as { transactionId: string }).transactionId);
		expect(await ipnFor(server, transactionId)).toEqual([expect.objectContaining({ status: "failed", statusCode: 4 })]);
	});

	test.each([
		["4242424242424242", "/callback", "successful"],
		["4000000000001018", "/error", "failed"],
	])("%s on the hosted page sends the buyer to %s with status %s", async (number, landing, status) => {
		const server = await sandbox();
		const created = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url));
		const link = new URL(String(openMessage(created.json, gateway).paymentLink));
		const help = await (await fetch(link)).text();
		// Grouped in fours, as printed on a card.
		expect(help).toContain(number.replace(/(\d{4})(?=\d)/g, "$1 "));
		expect(help).toMatch(/12\/30/);
		const form = { token: link.searchParams.get("token") ?? "", action: "pay", cardNumber: number, ...guide };
		const paid = await postForm(`${link.origin}${link.pathname}`, form);
		expect(paid.location?.startsWith(`${fixture.receiver.url}${landing}?payload=`)).toBe(true);
		expect(openCallbackUrl(paid.location ?? "", gateway).fields.status).toBe(status);
	});

	test("both are listed first in testCards, marked as the gateway guide's", () => {
		expect(testCards.slice(0, 2).map((c) => [c.number, c.behaviour, c.source])).toEqual([
			["4242424242424242", "approved", "gateway-guide"],
			["4000000000001018", "declined", "gateway-guide"],
		]);
	});
});

describe("S2S test cards", () => {
	test.each(["4000000000000010", "4111111111111111", "5555555555554444"])(
		"%s is approved: signed success, IPN successful",
		async (number) => {
			const server = await sandbox();
			const response = await charge(server, number);
			expect(response.status).toBe(200);
			expect(response.json).toMatchObject({
				status: "success",
				message: "The transaction has been successfully completed.",
			});
			const data = openMessage(response.json, gateway);
			const transactionId = String(data.transactionId);
			const [ipn] = await ipnFor(server, transactionId);
			expect(ipn).toMatchObject({
				status: "successful",
				statusCode: 6,
				paymentMethodDetails: { card: { lastFourDigits: number.slice(-4) } },
			});
			expect(JSON.stringify(server.sandbox.transaction(transactionId))).not.toContain(number);
		},
	);

	test("a 2.1 account gets the wrapped 2.1 form", async () => {
		const server = await sandbox({ merchant: { signVersion: "2.1" } });
		const response = await charge(server, "4000000000000010", {}, "2.1");
		expect(response.json).toMatchObject({
			status: "success",
			signVersion: "2.1",
			payload: expect.any(String),
			signature: expect.any(String),
		});
		expect(openMessage(response.json, gateway).transactionId).toEqual(expect.any(String));
	});

	test.each([
		["4000000000000028", 400, /declined/i],
		["4000000000000051", 400, /insufficient funds/i],
		["4000000000000077", 500, /provider/i],
	])(
		"%s fails with a processing error %i carrying data.transactionId, and an IPN failed",
		async (number, status, message) => {
			const server = await sandbox();
			const response = await charge(server, number);
			expect(response.status).toBe(status);
			expect(response.json).toMatchObject({
				status: "error",
				message: expect.stringMatching(message),
				data: { transactionId: expect.any(String) },
			});
			const transactionId = String((response.json.data as { transactionId: string }).transactionId);
			const [ipn] = await ipnFor(server, transactionId);
			expect(ipn).toMatchObject({ status: "failed", statusCode: 4 });
		},
	);

	test("an expired card is declined", async () => {
		const server = await sandbox({ now: "2026-11-22T10:00:00Z" });
		const response = await charge(server, "4000000000000010", { cardMonth: "10", cardYear: "26" });
		expect(response.status).toBe(400);
		expect(response.json.message).toBe("Expired card.");
		const sameMonth = await charge(server, "4000000000000010", { cardMonth: "11", cardYear: "26" });
		expect(sameMonth.status).toBe(200);
	});

	test.each([
		[{ password: "123456" }, "successful", 6, "/callback"],
		[{ password: "111111" }, "failed", 4, "/error"],
		[{ result: "pass" }, "successful", 6, "/callback"],
		[{ result: "fail" }, "failed", 4, "/error"],
	])("4000000000000036 asks for 3DS (pending, 2); the buyer sends %j", async (answer, status, code, landing) => {
		const server = await sandbox();
		const response = await charge(server, "4000000000000036");
		expect(response.status).toBe(200);
		const message = "Please redirect the user to complete the payment.";
		expect(response.json).toMatchObject({ status: "redirect", message });
		const data = openMessage(response.json, gateway);
		const url = new URL(String(data.url));
		expect(url.origin).toBe(server.url);
		expect(server.sandbox.transaction(String(data.transactionId))).toMatchObject({ status: "pending", statusCode: 2 });
		expect((await ipnFor(server, String(data.transactionId))).length).toBe(0);
		const page = await fetch(url);
		expect(page.status).toBe(200);
		expect(await page.text()).toMatch(/123456<\/code> confirms the payment,\s*<code>111111<\/code> makes it fail/);
		const token = url.searchParams.get("token") ?? "";
		const done = await postForm(`${url.origin}${url.pathname}`, { token, ...answer });
		expect(done.status).toBe(303);
		expect(done.location?.startsWith(`${fixture.receiver.url}${landing}?payload=`)).toBe(true);
		expect(openCallbackUrl(done.location ?? "", gateway).fields.status).toBe(status);
		const [ipn] = await ipnFor(server, String(data.transactionId));
		expect(ipn).toMatchObject({ status, statusCode: code });
	});

	test("a wrong 3-D Secure password is refused on the page; the payment stays pending", async () => {
		const server = await sandbox();
		const data = openMessage((await charge(server, "4000000000000036")).json, gateway);
		const url = new URL(String(data.url));
		const token = url.searchParams.get("token") ?? "";
		const wrong = await postForm(`${url.origin}${url.pathname}`, { token, password: "864209" });
		expect(wrong.status).toBe(422);
		expect(wrong.text).toContain("That password is wrong");
		expect(wrong.text).not.toContain("864209");
		expect(server.sandbox.transaction(String(data.transactionId))?.status).toBe("pending");
	});

	test.each([
		["4000000000000044", "successful"],
		["4000000000000085", "failed"],
	])("%s is pending, then %s once the sandbox clock moves pendingDelayMs", async (number, final) => {
		const server = await sandbox({ now: "2026-11-22T10:00:00Z", pendingDelayMs: 10_000 });
		const response = await charge(server, number);
		expect(response.json).toMatchObject({ status: "pending", message: "pending" });
		const transactionId = String(openMessage(response.json, gateway).transactionId);
		expect(server.sandbox.transaction(transactionId)?.status).toBe("pending");
		server.sandbox.clock.advance(9_999);
		expect(server.sandbox.transaction(transactionId)?.status).toBe("pending");
		server.sandbox.clock.advance(1);
		expect(server.sandbox.transaction(transactionId)?.status).toBe(final);
		const ipns = await ipnFor(server, transactionId);
		expect(ipns.map((i) => i.status)).toEqual([final]);
	});

	test("4000000000000069 cascades: the first provider declines, the second approves; only approval shows", async () => {
		const server = await sandbox();
		const response = await charge(server, "4000000000000069");
		expect(response.status).toBe(200);
		const transactionId = String(openMessage(response.json, gateway).transactionId);
		const transaction = server.sandbox.transaction(transactionId);
		expect(transaction?.status).toBe("successful");
		expect(transaction?.provider).toBe("Sandbox Acquirer B");
		expect(transaction?.attempts.map((a) => `${a.provider}:${a.outcome}`)).toEqual([
			"Sandbox Acquirer A:declined",
			"Sandbox Acquirer B:approved",
		]);
		const ipns = await ipnFor(server, transactionId);
		expect(ipns.map((i) => i.status)).toEqual(["successful"]);
		const query = await signedPost(server.url, "/v2/checkout/query", { merchantId: MERCHANT_ID, transactionId });
		expect(JSON.stringify(query.json)).not.toContain("declined");
	});

	test("the cascade card is declined when the merchant has auto-cascade off", async () => {
		const server = await sandbox({ merchant: { autoCascade: false } });
		const response = await charge(server, "4000000000000069");
		expect(response.status).toBe(400);
	});

	test("a merchant with HPP processors only gets the no-S2S-provider 422", async () => {
		const server = await sandbox({ merchant: { providers: [{ name: "Hosted Only", kind: "hpp" }] } });
		const response = await charge(server, "4000000000000010");
		expect(response.status).toBe(422);
		expect(response.json).toEqual({ status: "error", transactionId: null, message: expect.any(String) });
		expect(server.sandbox.transactions()).toHaveLength(0);
	});

	test("S2S field rules respond 422 in the gateway's words: 'The billing email field is required.'", async () => {
		const server = await sandbox();
		const { billingEmail: _e, ...withoutEmail } = cardFields(fixture.receiver.url, "4242424242424242");
		const response = await signedPost(server.url, "/v2/card/api", withoutEmail);
		expect(response).toEqual({
			status: 422,
			json: {
				status: "error",
				message: "Invalid request data.",
				errors: [{ field: "billingEmail", message: ["The billing email field is required."] }],
			},
		});
	});

	test("S2S field rules respond 422 (billingState for US, Luhn)", async () => {
		const server = await sandbox();
		const response = await charge(server, "4000000000000011", { billingCountry: "US" });
		expect(response.status).toBe(422);
		const fields = (response.json.errors as { field: string }[]).map((e) => e.field).sort();
		expect(fields).toEqual(["billingState", "cardNumber"]);
		expect(JSON.stringify(response.json)).not.toContain("4000000000000011");
	});
});

describe("fees", () => {
	test("feeBySeller splits the fee; paidAmount has the buyer's share; settlement and dates agree", async () => {
		const server = await sandbox({
			now: "2026-11-22T10:00:00Z",
			merchant: {
				fees: {
					percent: 3,
					fixed: 0.3,
					rollingReservePercent: 10,
					operate: 0.05,
					settlementDelayDays: 2,
					rollingReleaseDays: 90,
				},
			},
		});
		const response = await charge(server, "4000000000000010", { amount: 200, feeBySeller: 25 });
		const transactionId = String(openMessage(response.json, gateway).transactionId);
		const query = await signedPost(server.url, "/v2/checkout/query", { merchantId: MERCHANT_ID, transactionId });
		const t = openMessage(query.json, gateway) as Record<string, unknown> & { fees: Record<string, number | string> };
		// fee = 3% of 200 + 0.30 = 6.30; the seller pays 25% (1.58 rounded), the buyer 4.72.
		expect(t.fees).toMatchObject({ buyer: 4.72, seller: 1.58, rolling: 20, operate: 0.05 });
		expect(t.fees.estimationRollingReleaseAt).toBe("2027-02-20T10:00:00+00:00");
		expect(t.paidAmount).toBe(204.72);
		expect(t.settlementAmount).toBe(178.37);
		expect(t.estimationSettlementAt).toBe("2026-11-24T10:00:00+00:00");
		expect(t.transactionCreatedAt).toBe("2026-11-22T10:00:00+00:00");
		expect(t.originalTransactionCreatedAt).toBe("2026-11-22T10:00:00+00:00");
	});

	test("without feeBySeller the account's share applies (default: the seller pays all)", async () => {
		const server = await sandbox();
		const response = await charge(server, "4000000000000010", { amount: 10 });
		const t = server.sandbox.transaction(String(openMessage(response.json, gateway).transactionId));
		expect(t?.paidAmount).toBe(10);
		expect(t?.fees).toMatchObject({ buyer: 0, seller: 0.59 });
		expect(t?.settlementAmount).toBe(9.41);
	});
});
