import { describe, expect, test } from "vitest";
import { openMessage } from "../../src/signing/index.js";
import { keys } from "../support/vectors.js";
import { cardFields, MERCHANT_ID, type SandboxServer, signedPost, useSandboxFixture } from "./helpers.js";

type Server = SandboxServer;
const fixture = useSandboxFixture();
const { sandbox } = fixture;
const gateway = { publicKey: keys.gatewayPublic };

/** A paid S2S transaction of `amount` (feeBySeller 0 with a 1% fee, so paidAmount is amount + 1%). */
async function paid(server: Server, amount = 100, card = "4000000000000010"): Promise<string> {
	const response = await signedPost(server.url, "/v2/card/api", cardFields(fixture.receiver.url, card, { amount }));
	expect(response.status).toBe(200);
	return String(openMessage(response.json, gateway).transactionId);
}

const refund = (server: Server, transactionId: string, amount: number, reason?: string) =>
	signedPost(server.url, "/v2/refund", {
		merchantId: MERCHANT_ID,
		transactionId,
		amount,
		...(reason === undefined ? {} : { reason }),
	});

const amountError = (response: { status: number; json: Record<string, unknown> }) => {
	expect(response.status).toBe(422);
	const errors = response.json.errors as { field: string; message: string[] }[];
	expect(errors.map((e) => e.field)).toEqual(["amount"]);
	return errors[0]?.message.join(" ") ?? "";
};

const refundIpns = async (server: Server, refundId: string) => {
	await server.sandbox.whenIdle();
	return fixture.receiver.ipns.map((r) => openMessage(r.body, gateway)).filter((f) => f.refundId === refundId);
};

describe("refund rules", () => {
	test("auto approval: a partial refund is done at once, message null, one IPN refund_successful (11)", async () => {
		const server = await sandbox();
		const transactionId = await paid(server);
		const response = await refund(server, transactionId, 30.5, "damaged");
		expect(response.status).toBe(200);
		expect(response.json).toMatchObject({ status: "success", message: null });
		const data = openMessage(response.json, gateway);
		expect(data.refundId).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
		expect(data.refundNumber).toMatch(/^\d{4}-\d{10}$/);
		const ipns = await refundIpns(server, String(data.refundId));
		expect(ipns).toEqual([
			expect.objectContaining({
				status: "refund_successful",
				statusCode: 11,
				refundAmount: 30.5,
				reason: "damaged",
				transactionId,
			}),
		]);
	});

	test("D12 on a frozen clock: refund number yymm-seconds, dates with +00:00; D11: no merchantId needed", async () => {
		const server = await sandbox({ now: "2026-01-31T23:59:59.900Z" });
		const transactionId = await paid(server);
		server.sandbox.clock.advance(3_600_000);
		const response = await signedPost(server.url, "/v2/refund", {
			transactionId: transactionId.toUpperCase(),
			amount: 1,
		});
		expect(response.status).toBe(200);
		const { refundId, refundNumber } = openMessage(response.json, gateway) as {
			refundId: string;
			refundNumber: string;
		};
		expect(refundNumber).toBe(`2602-${Date.parse("2026-02-01T00:59:59Z") / 1000}`);
		const query = await signedPost(server.url, "/v2/refund/query", { refundId });
		expect(openMessage(query.json, gateway)).toMatchObject({
			refundId,
			transactionId,
			refundCreatedAt: "2026-02-01T00:59:59+00:00",
			originalRefundCreatedAt: "2026-02-01T00:59:59+00:00",
			transactionCreatedAt: "2026-01-31T23:59:59+00:00",
		});
		const number = `2601-${Date.parse("2026-01-31T23:59:59Z") / 1000}`;
		expect(server.sandbox.transaction(transactionId)?.transactionNumber).toBe(number);
	});

	test("the minimum is 0.10 and amounts keep at most 2 decimals", async () => {
		const server = await sandbox();
		const transactionId = await paid(server);
		amountError(await refund(server, transactionId, 0.09));
		amountError(await refund(server, transactionId, 0.105));
		expect((await refund(server, transactionId, 0.1)).status).toBe(200);
	});

	test("the maximum is paidAmount (buyer fee included) minus what was already refunded", async () => {
		const server = await sandbox({ merchant: { feeBySeller: 0, fees: { percent: 1, fixed: 0 } } });
		const transactionId = await paid(server, 100);
		expect(server.sandbox.transaction(transactionId)?.paidAmount).toBe(101);
		expect((await refund(server, transactionId, 60)).status).toBe(200);
		expect(amountError(await refund(server, transactionId, 41.01))).toContain("41.00");
		expect((await refund(server, transactionId, 41)).status).toBe(200);
		expect(amountError(await refund(server, transactionId, 0.1))).toMatch(/nothing is left/);
	});

	test("a transaction that is not successful cannot be refunded, nor another merchant's", async () => {
		const server = await sandbox();
		server.sandbox.addMerchant({ merchantId: "merchant-2", publicKey: keys.merchantPublic });
		const declined = await signedPost(server.url, "/v2/card/api", cardFields(fixture.receiver.url, "4000000000000028"));
		const declinedId = String((declined.json.data as { transactionId: string }).transactionId);
		const response = await refund(server, declinedId, 1);
		expect(response.status).toBe(422);
		const notRefundable = "The transaction id field must be a successful transaction (this one is failed).";
		expect(response.json.errors).toEqual([{ field: "transactionId", message: [notRefundable] }]);
		const transactionId = await paid(server);
		const foreign = await signedPost(server.url, "/v2/refund", { merchantId: "merchant-2", transactionId, amount: 1 });
		expect(foreign.status).toBe(422);
	});

	test("a full-refund-only provider refuses partial refunds and takes the full paid amount once", async () => {
		const server = await sandbox({ merchant: { providers: [{ name: "Full Only Bank", fullRefundOnly: true }] } });
		const transactionId = await paid(server, 50);
		const partial = amountError(await refund(server, transactionId, 20));
		expect(partial).toMatch(/^The amount field must be the full paid amount, 50.00 EUR/);
		expect((await refund(server, transactionId, 50)).status).toBe(200);
		amountError(await refund(server, transactionId, 50));
	});

	test("refunds need a valid merchant signature, with or without merchantId: 500 'Invalid signature'", async () => {
		const server = await sandbox();
		const transactionId = await paid(server);
		const message = `Invalid signature with merchantId: ${MERCHANT_ID}`;
		const refusal = { status: 500, json: { status: "error", message } };
		const forger = { privateKey: keys.gatewayPrivate };
		const forged = await signedPost(
			server.url,
			"/v2/refund",
			{ merchantId: MERCHANT_ID, transactionId, amount: 1 },
			{ privateKey: keys.gatewayPrivate },
		);
		expect(forged).toEqual(refusal);
		expect(await signedPost(server.url, "/v2/refund", { transactionId, amount: 1 }, forger)).toEqual(refusal);
		await server.sandbox.whenIdle();
		const ipns = fixture.receiver.ipns.map((r) => openMessage(r.body, gateway));
		expect(ipns.filter((f) => f.transactionId === transactionId && f.refundId !== undefined)).toEqual([]);
	});
});

describe("manual approval", () => {
	test("a held refund is refund_under_review (10); approval makes it refund_successful (11), with an IPN", async () => {
		const server = await sandbox({ merchant: { refundApproval: "manual", signVersion: "2.1" } });
		const transactionId = await paid(server);
		const response = await signedPost(
			server.url,
			"/v2/refund",
			{ merchantId: MERCHANT_ID, transactionId, amount: 10 },
			{ signVersion: "2.1" },
		);
		expect(response.status).toBe(200);
		expect(response.json.message).toBe("The refund was created and is waiting for approval.");
		const { refundId } = openMessage(response.json, gateway) as { refundId: string };
		expect(server.sandbox.refund(refundId)?.status).toBe("refund_under_review");

		const before = await signedPost(
			server.url,
			"/v2/refund/query",
			{ merchantId: MERCHANT_ID, refundId },
			{ signVersion: "2.1" },
		);
		expect(before.json).toMatchObject({ status: "success", signVersion: "2.1" });
		const held = openMessage(before.json, gateway);
		expect(held).toMatchObject({ refundId, status: "refund_under_review", statusCode: 10, refundAmount: 10 });

		expect(server.sandbox.approveRefund(refundId)).toMatchObject({ status: "refund_successful", statusCode: 11 });
		expect(() => server.sandbox.approveRefund(refundId)).toThrow(/only a refund under review/);
		const ipns = await refundIpns(server, refundId);
		expect(ipns.map((i) => [i.status, i.statusCode])).toEqual([
			["refund_under_review", 10],
			["refund_successful", 11],
		]);

		const after = await signedPost(server.url, "/v2/refund/query", { merchantId: MERCHANT_ID, refundId });
		expect(openMessage(after.json, gateway)).toMatchObject({ status: "refund_successful", statusCode: 11 });
	});

	test("a held refund reserves its amount; rejected, it is refund_failed (9), released, with an IPN", async () => {
		const server = await sandbox({ merchant: { refundApproval: "manual" } });
		const transactionId = await paid(server, 20);
		const first = openMessage((await refund(server, transactionId, 20)).json, gateway) as { refundId: string };
		amountError(await refund(server, transactionId, 1));
		const rejected = server.sandbox.rejectRefund(first.refundId, "Not eligible");
		expect(rejected).toMatchObject({ status: "refund_failed", statusCode: 9, message: "Not eligible" });
		expect((await refund(server, transactionId, 20)).status).toBe(200);
		const ipns = await refundIpns(server, first.refundId);
		expect(ipns.map((i) => [i.status, i.statusCode])).toEqual([
			["refund_under_review", 10],
			["refund_failed", 9],
		]);
	});

	test("the refund query responds 404 for an unknown refund", async () => {
		const server = await sandbox();
		const response = await signedPost(server.url, "/v2/refund/query", {
			merchantId: MERCHANT_ID,
			refundId: "01JZZZZZZZZZZZZZZZZZZZZZZZ",
		});
		expect(response.status).toBe(404);
	});
});
