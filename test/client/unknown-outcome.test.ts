import { HttpResponse } from "msw";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { GatewayClientOptions } from "../../src/client.js";
import { GatewayError, InvalidResponseError, OutcomeUnknownError, type SignatureFailureReason, SignatureVerificationError } from "../../src/errors/index.js";
import { signText } from "../../src/signing/seal.js";
import { GatewayFixture } from "../fixtures/gateway.js";
import { checkoutCreated, ids, refund, signedFlat, signedWrapped, transaction, type Version } from "../fixtures/gateway-messages.js";
import { keys } from "../helpers/vectors.js";
import { MERCHANT_ID, type SandboxServer, startReceiver, startSandbox } from "../sandbox/helpers.js";
import { cardParams, checkoutParams, makeClient } from "./helpers.js";

/**
 * A create whose answer arrived but could not be verified or read may have
 * been processed: the gateway charged, then answered in a form the client
 * refuses. It must surface as OutcomeUnknownError naming what to reconcile,
 * with the verification failure as cause and the setting to check in its
 * message, never as a plain failure that invites a retry. Queries change
 * nothing, so they keep throwing SignatureVerificationError.
 */

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
	const error = await promise.then(
		() => undefined,
		(e: unknown) => e,
	);
	expect(error).toBeInstanceOf(GatewayError);
	return error as GatewayError;
}

function expectUnknown(error: GatewayError, reconcile: { orderRef?: string; transactionId?: string }, setting: RegExp): OutcomeUnknownError {
	expect(error).toBeInstanceOf(OutcomeUnknownError);
	const unknown = error as OutcomeUnknownError;
	expect(unknown.orderRef).toBe(reconcile.orderRef);
	expect(unknown.transactionId).toBe(reconcile.transactionId);
	expect(unknown.message).toContain(reconcile.orderRef ? `orderRef ${reconcile.orderRef}` : `transaction ${reconcile.transactionId}`);
	expect(unknown.message).toMatch(setting);
	return unknown;
}

function expectSignatureCause(error: OutcomeUnknownError, reason: SignatureFailureReason): void {
	expect(error.cause).toBeInstanceOf(SignatureVerificationError);
	expect((error.cause as SignatureVerificationError).reason).toBe(reason);
}

describe("against the sandbox over real HTTP: the gateway processed the create, the client cannot verify its answer", () => {
	let server: SandboxServer;
	let receiver: Awaited<ReturnType<typeof startReceiver>>;
	beforeAll(async () => {
		receiver = await startReceiver();
		server = await startSandbox({ merchant: { merchantId: MERCHANT_ID, signVersion: "2.0" } });
		server.sandbox.addMerchant({ merchantId: "merchant-21", publicKey: keys.merchantPublic, signVersion: "2.1" });
	});
	afterAll(async () => {
		await server.close();
		await receiver.close();
	});

	const urls = () => ({
		callbackUrl: `${receiver.url}/callback`,
		notificationUrl: `${receiver.url}/ipn`,
		cancelUrl: `${receiver.url}/cancel`,
		errorUrl: `${receiver.url}/error`,
	});
	const client = (overrides: Partial<GatewayClientOptions>) => makeClient({ baseUrl: server.url, allowLoopbackHttp: true, ...overrides });
	const charged = (orderRef: string) => server.sandbox.transactions().filter((t) => t.ref === orderRef);

	const misconfigurations: Array<[string, Partial<GatewayClientOptions>, SignatureFailureReason, RegExp]> = [
		["signVersion 2.0 on a 2.1 account", { merchantId: "merchant-21", signVersion: "2.0" }, "version_not_accepted", /check signVersion/],
		["signVersion 2.1 on a 2.0 account", { merchantId: MERCHANT_ID, signVersion: "2.1" }, "version_not_accepted", /check signVersion/],
		["the wrong gateway public key (2.0)", { merchantId: MERCHANT_ID, gatewayPublicKey: keys.merchantPublic }, "mismatch", /check gatewayPublicKey/],
		[
			"the wrong gateway public key (2.1)",
			{ merchantId: "merchant-21", signVersion: "2.1", gatewayPublicKey: keys.merchantPublic },
			"mismatch",
			/check gatewayPublicKey/,
		],
	];

	test.each(misconfigurations)("card.charge with %s: OutcomeUnknownError, and the card was charged", async (_name, options, reason, setting) => {
		const orderRef = `ORD-UNKNOWN-${reason}-${Math.random().toString(36).slice(2, 8)}`;
		const error = await rejection(client(options).card.charge(cardParams({ orderRef, ...urls() })));
		expectSignatureCause(expectUnknown(error, { orderRef }, setting), reason);
		expect(error.message).not.toMatch(/no answer came back/);
		// The gateway did charge: a retry would have charged twice.
		expect(charged(orderRef)).toHaveLength(1);
		expect(charged(orderRef)[0]?.status).toBe("successful");
	});

	test.each(misconfigurations)("checkout.create with %s: OutcomeUnknownError, and the session exists", async (_name, options, reason, setting) => {
		const orderRef = `ORD-SESSION-${reason}-${Math.random().toString(36).slice(2, 8)}`;
		const error = await rejection(client(options).checkout.create(checkoutParams({ orderRef, ...urls() })));
		expectSignatureCause(expectUnknown(error, { orderRef }, setting), reason);
		expect(charged(orderRef)).toHaveLength(1);
	});

	test.each(misconfigurations)(
		"refunds.create with %s: OutcomeUnknownError naming the transaction, and the refund exists",
		async (_n, options, reason, setting) => {
			const merchantId = options.merchantId ?? MERCHANT_ID;
			const signVersion = merchantId === MERCHANT_ID ? "2.0" : "2.1";
			const orderRef = `ORD-REFUND-${reason}-${Math.random().toString(36).slice(2, 8)}`;
			const sale = await client({ merchantId, signVersion }).card.charge(cardParams({ orderRef, ...urls() }));
			const error = await rejection(client(options).refunds.create({ transactionId: sale.transactionId, amount: 1 }));
			expectSignatureCause(expectUnknown(error, { transactionId: sale.transactionId }, setting), reason);
			// The refund was made: its IPN reached the merchant.
			await server.sandbox.whenIdle();
			const refundIpns = receiver.ipns.filter((ipn) => ipn.body.includes("refundId") && ipn.body.includes(sale.transactionId));
			expect(refundIpns).toHaveLength(1);
		},
	);

	test.each(misconfigurations)("queries with %s still throw SignatureVerificationError", async (_name, options, reason) => {
		const merchantId = options.merchantId ?? MERCHANT_ID;
		const signVersion = merchantId === MERCHANT_ID ? "2.0" : "2.1";
		const sale = await client({ merchantId, signVersion }).card.charge(cardParams({ orderRef: `ORD-Q-${reason}`, ...urls() }));
		const error = await rejection(client(options).transactions.retrieve(sale.transactionId));
		expect(error).toBeInstanceOf(SignatureVerificationError);
		expect((error as SignatureVerificationError).reason).toBe(reason);
	});
});

describe("malformed, tampered or unsigned creation answers (MSW gateway)", () => {
	const fixture = new GatewayFixture();
	beforeAll(() => fixture.server.listen({ onUnhandledFrame: "error" }));
	afterAll(() => fixture.server.close());

	const tamperedCard = (version: Version) => {
		const signed = signedWrapped("success", "ok", { transactionId: ids.transaction }, version);
		if (version === "2.1") return { ...signed, payload: String(signed.payload).replace(ids.transaction, `${ids.transaction.slice(0, -1)}0`) };
		return { ...signed, data: { ...(signed.data as Record<string, unknown>), transactionId: `${ids.transaction.slice(0, -1)}0` } };
	};
	const creates = (version: Version) => {
		const gateway = makeClient({ signVersion: version });
		return [
			["/v2/checkout", () => gateway.checkout.create(checkoutParams({ orderRef: "ORD-C" })), { orderRef: "ORD-C" }],
			["/v2/card/api", () => gateway.card.charge(cardParams({ orderRef: "ORD-S" })), { orderRef: "ORD-S" }],
			["/v2/refund", () => gateway.refunds.create({ transactionId: ids.transaction, amount: 1 }), { transactionId: ids.transaction }],
		] as const;
	};

	test.each(["2.0", "2.1"] as const)("a tampered signed field: OutcomeUnknownError, cause mismatch (%s)", async (version) => {
		fixture.reset(version);
		const flat = signedFlat(checkoutCreated(), version);
		const tamperedFlat =
			version === "2.1" ? { ...flat, payload: String(flat.payload).replace("abc", "abd") } : { ...flat, paymentLink: "https://evil.example/" };
		fixture.next("/v2/checkout", () => HttpResponse.json(tamperedFlat));
		fixture.next("/v2/card/api", () => HttpResponse.json(tamperedCard(version)));
		const refundSigned = signedWrapped("success", null, { refundId: ids.refund, refundNumber: "RF-1" }, version, keys.merchantPrivate);
		fixture.next("/v2/refund", () => HttpResponse.json(refundSigned));
		for (const [path, call, reconcile] of creates(version)) {
			const error = expectUnknown(await rejection(call()), reconcile, /check gatewayPublicKey/);
			expectSignatureCause(error, "mismatch");
			expect(error.path).toBe(path);
			expect(error.status).toBe(200);
		}
		expect(fixture.attempts).toEqual(["/v2/checkout", "/v2/card/api", "/v2/refund"]);
	});

	test.each(["2.0", "2.1"] as const)("an unsigned success answer: OutcomeUnknownError, cause missing_signature (%s)", async (version) => {
		fixture.reset(version);
		fixture.next("/v2/checkout", () => HttpResponse.json(checkoutCreated()));
		fixture.next("/v2/card/api", () => HttpResponse.json({ status: "success", message: "ok", data: { transactionId: ids.transaction } }));
		fixture.next("/v2/refund", () => HttpResponse.json({ status: "success", message: null, data: { refundId: ids.refund, refundNumber: "RF-1" } }));
		for (const [, call, reconcile] of creates(version)) {
			expectSignatureCause(expectUnknown(await rejection(call()), reconcile, /check signVersion.*requireSignedResponses/), "missing_signature");
		}
	});

	test.each([
		["a 200 that is not JSON", () => new HttpResponse("<html>Thank you</html>", { status: 200 }), /could not be read \(not a JSON object\)/],
		["a 500 page that is not JSON", () => new HttpResponse("<h1>Internal Server Error</h1>", { status: 500 }), /could not be read/],
		["a 500 JSON body that is no gateway answer", () => HttpResponse.json({ trace: "x" }, { status: 500 }), /could not be read/],
		["a signed answer of the wrong shape", () => HttpResponse.json(signedFlat({ unexpected: true }, "2.0")), /could not be read.*check signVersion/],
	] as const)("%s: OutcomeUnknownError with the InvalidResponseError as cause", async (_name, responder, circumstance) => {
		fixture.reset("2.0");
		for (const path of ["/v2/checkout", "/v2/card/api", "/v2/refund"]) fixture.next(path, responder);
		for (const [, call, reconcile] of creates("2.0")) {
			const error = expectUnknown(await rejection(call()), reconcile, circumstance);
			expect(error.cause).toBeInstanceOf(InvalidResponseError);
		}
	});

	test("a signed 2.1 payload that is not JSON: OutcomeUnknownError with the InvalidResponseError as cause", async () => {
		fixture.reset("2.1");
		const answer = () => HttpResponse.json({ payload: "not json", signVersion: "2.1", signature: signText("not json", keys.gatewayPrivate) });
		for (const path of ["/v2/checkout", "/v2/card/api", "/v2/refund"]) fixture.next(path, answer);
		for (const [, call, reconcile] of creates("2.1")) {
			const error = expectUnknown(await rejection(call()), reconcile, /could not be read/);
			expect(error.cause).toBeInstanceOf(InvalidResponseError);
		}
	});

	test("a 4xx page that is not JSON was a refusal, not an unknown outcome", async () => {
		fixture.reset("2.0");
		fixture.next("/v2/card/api", () => new HttpResponse("<h1>Bad Request</h1>", { status: 400 }));
		const error = await rejection(makeClient().card.charge(cardParams()));
		expect(error).toBeInstanceOf(InvalidResponseError);
		expect(error).not.toBeInstanceOf(OutcomeUnknownError);
	});

	test("queries: a tampered or unsigned answer is still a SignatureVerificationError", async () => {
		fixture.reset("2.0");
		const signed = signedFlat(transaction(), "2.0");
		fixture.next("/v2/checkout/query", () => HttpResponse.json({ ...signed, amount: 1000 }));
		const tampered = await rejection(makeClient().transactions.retrieve(ids.transaction));
		expect(tampered).toBeInstanceOf(SignatureVerificationError);
		fixture.next("/v2/refund/query", () => HttpResponse.json({ status: "success", message: null, data: refund() }));
		const unsigned = await rejection(makeClient().refunds.retrieve(ids.refund));
		expect(unsigned).toBeInstanceOf(SignatureVerificationError);
	});
});
