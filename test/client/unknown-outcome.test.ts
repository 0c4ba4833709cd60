import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
	type GatewayClientOptions,
	GatewayError,
	InvalidResponseError,
	OutcomeUnknownError,
	type SignatureFailureReason,
	SignatureVerificationError,
} from "../../src/index.js";
import { signText } from "../../src/signing/seal.js";
import { MERCHANT_ID, type SandboxServer, startReceiver, startSandbox } from "../sandbox/helpers.js";
import {
	checkoutCreated,
	ids,
	refund,
	signedFlat,
	signedWrapped,
	transaction,
	type Version,
} from "../support/gateway-messages.js";
import { keys } from "../support/vectors.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams, makeClient } from "./helpers.js";

/**
 * A create whose response arrived but could not be verified or read may have
 * been processed: the gateway charged, then responded in a form the client
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

type Reconcile = { orderRef?: string; transactionId?: string };

function expectUnknown(error: GatewayError, reconcile: Reconcile, setting: RegExp): OutcomeUnknownError {
	expect(error).toBeInstanceOf(OutcomeUnknownError);
	const unknown = error as OutcomeUnknownError;
	expect(unknown.orderRef).toBe(reconcile.orderRef);
	expect(unknown.transactionId).toBe(reconcile.transactionId);
	const named = reconcile.orderRef ? `orderRef ${reconcile.orderRef}` : `transaction ${reconcile.transactionId}`;
	expect(unknown.message).toContain(named);
	expect(unknown.message).toMatch(setting);
	return unknown;
}

function expectSignatureCause(error: OutcomeUnknownError, reason: SignatureFailureReason): void {
	expect(error.cause).toBeInstanceOf(SignatureVerificationError);
	expect((error.cause as SignatureVerificationError).reason).toBe(reason);
}

const VERSIONS = ["2.0", "2.1"] as const;
const unique = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe("against the sandbox over real HTTP: the gateway processed the create, the client cannot verify it", () => {
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
	const client = (overrides: Partial<GatewayClientOptions>) => {
		return makeClient({ baseUrl: server.url, allowLoopbackHttp: true, ...overrides });
	};
	/** A client set up as the account really is. */
	const rightClient = (options: Partial<GatewayClientOptions>) => {
		const merchantId = options.merchantId ?? MERCHANT_ID;
		return client({ merchantId, signVersion: merchantId === MERCHANT_ID ? "2.0" : "2.1" });
	};
	const charged = (orderRef: string) => server.sandbox.transactions().filter((t) => t.ref === orderRef);

	interface Misconfiguration {
		name: string;
		options: Partial<GatewayClientOptions>;
		reason: SignatureFailureReason;
		setting: RegExp;
	}
	const version = { reason: "version_not_accepted", setting: /check signVersion/ } as const;
	const key = { reason: "mismatch", setting: /check gatewayPublicKey/ } as const;
	const gatewayPublicKey = keys.merchantPublic;
	const on21 = { merchantId: "merchant-21", signVersion: "2.1" } as const;
	const misconfigurations: Misconfiguration[] = [
		{
			name: "signVersion 2.0 on a 2.1 account",
			options: { merchantId: "merchant-21", signVersion: "2.0" },
			...version,
		},
		{ name: "signVersion 2.1 on a 2.0 account", options: { merchantId: MERCHANT_ID, signVersion: "2.1" }, ...version },
		{ name: "the wrong gateway key (2.0)", options: { merchantId: MERCHANT_ID, gatewayPublicKey }, ...key },
		{ name: "the wrong gateway key (2.1)", options: { ...on21, gatewayPublicKey }, ...key },
	];

	test.each(misconfigurations)("card.charge, $name: unknown outcome, card charged", async (row) => {
		const { options, reason, setting } = row;
		const orderRef = unique(`ORD-UNKNOWN-${reason}`);
		const error = await rejection(client(options).card.charge(cardParams({ orderRef, ...urls() })));
		expectSignatureCause(expectUnknown(error, { orderRef }, setting), reason);
		expect(error.message).not.toMatch(/no response came back/);
		// The gateway did charge: a retry would have charged twice.
		expect(charged(orderRef)).toHaveLength(1);
		expect(charged(orderRef)[0]?.status).toBe("successful");
	});

	test.each(misconfigurations)("checkout.create, $name: unknown outcome, session made", async (row) => {
		const { options, reason, setting } = row;
		const orderRef = unique(`ORD-SESSION-${reason}`);
		const error = await rejection(client(options).checkout.create(checkoutParams({ orderRef, ...urls() })));
		expectSignatureCause(expectUnknown(error, { orderRef }, setting), reason);
		expect(charged(orderRef)).toHaveLength(1);
	});

	test.each(misconfigurations)("refunds.create, $name: unknown outcome, refund made", async (row) => {
		const { options, reason, setting } = row;
		const orderRef = unique(`ORD-REFUND-${reason}`);
		const sale = await rightClient(options).card.charge(cardParams({ orderRef, ...urls() }));
		const error = await rejection(client(options).refunds.create({ transactionId: sale.transactionId, amount: 1 }));
		expectSignatureCause(expectUnknown(error, { transactionId: sale.transactionId }, setting), reason);
		// The refund was made: its IPN reached the merchant.
		await server.sandbox.whenIdle();
		const refundIpns = receiver.ipns.filter(
			({ body }) => body.includes("refundId") && body.includes(sale.transactionId),
		);
		expect(refundIpns).toHaveLength(1);
	});

	test.each(misconfigurations)("queries, $name: still SignatureVerificationError", async ({ options, reason }) => {
		const sale = await rightClient(options).card.charge(cardParams({ orderRef: unique("ORD-Q"), ...urls() }));
		const error = await rejection(client(options).transactions.retrieve(sale.transactionId));
		expect(error).toBeInstanceOf(SignatureVerificationError);
		expect((error as SignatureVerificationError).reason).toBe(reason);
	});
});

describe("malformed, tampered or unsigned creation responses (the sandbox's faults)", () => {
	const fixture = useGateway();

	const otherTransaction = `${ids.transaction.slice(0, -1)}0`;
	const tamperedCard = (version: Version) => {
		const signed = signedWrapped("success", "ok", { transactionId: ids.transaction }, version);
		const payload = String(signed.payload).replace(ids.transaction, otherTransaction);
		if (version === "2.1") return { ...signed, payload };
		return { ...signed, data: { ...(signed.data as Record<string, unknown>), transactionId: otherTransaction } };
	};
	const tamperedCheckout = (version: Version) => {
		const flat = signedFlat(checkoutCreated(), version);
		if (version === "2.1") return { ...flat, payload: String(flat.payload).replace("abc", "abd") };
		return { ...flat, paymentLink: "https://evil.example/" };
	};
	const refundCreated = { refundId: ids.refund, refundNumber: "RF-1" };
	const creates = (version: Version) => {
		const gateway = fixture.client({ signVersion: version });
		const refundFor = { transactionId: ids.transaction };
		return [
			["/v2/checkout", () => gateway.checkout.create(checkoutParams({ orderRef: "ORD-C" })), { orderRef: "ORD-C" }],
			["/v2/card/api", () => gateway.card.charge(cardParams({ orderRef: "ORD-S" })), { orderRef: "ORD-S" }],
			["/v2/refund", () => gateway.refunds.create({ ...refundFor, amount: 1 }), refundFor],
		] as const;
	};
	const respondToEveryCreate = (responder: () => Response) => {
		for (const path of ["/v2/checkout", "/v2/card/api", "/v2/refund"]) fixture.next(path, responder);
	};

	test.each(VERSIONS)("a tampered signed field: unknown outcome, cause mismatch (%s)", async (version) => {
		fixture.next("/v2/checkout", () => Response.json(tamperedCheckout(version)));
		fixture.next("/v2/card/api", () => Response.json(tamperedCard(version)));
		const refundSignedByAnother = signedWrapped("success", null, refundCreated, version, keys.merchantPrivate);
		fixture.next("/v2/refund", () => Response.json(refundSignedByAnother));
		for (const [path, call, reconcile] of creates(version)) {
			const error = expectUnknown(await rejection(call()), reconcile, /check gatewayPublicKey/);
			expectSignatureCause(error, "mismatch");
			expect(error.path).toBe(path);
			expect(error.status).toBe(200);
		}
		expect(fixture.received().map((r) => r.path)).toEqual(["/v2/checkout", "/v2/card/api", "/v2/refund"]);
	});

	test.each(VERSIONS)("an unsigned success: unknown outcome, cause missing_signature (%s)", async (version) => {
		fixture.next("/v2/checkout", () => Response.json(checkoutCreated()));
		const charged = { transactionId: ids.transaction };
		fixture.next("/v2/card/api", () => Response.json({ status: "success", message: "ok", data: charged }));
		fixture.next("/v2/refund", () => Response.json({ status: "success", message: null, data: refundCreated }));
		for (const [, call, reconcile] of creates(version)) {
			const error = expectUnknown(await rejection(call()), reconcile, /check signVersion.*requireSignedResponses/);
			expectSignatureCause(error, "missing_signature");
		}
	});

	const page = (status: number, text: string) => () => new Response(text, { status });
	const unreadable: Array<[string, () => Response, RegExp]> = [
		["a 200 that is not JSON", page(200, "<html>Thank you</html>"), /could not be read \(not a JSON/],
		["a 500 page that is not JSON", page(500, "<h1>Internal Server Error</h1>"), /could not be read/],
		["a 500 JSON body that is no gateway response", () => Response.json({}, { status: 500 }), /could not be read/],
		["a signed response, wrong shape", () => Response.json(signedFlat({ a: 1 }, "2.0")), /read.*check signVersion/],
	];

	test.each(unreadable)("%s: unknown outcome, cause InvalidResponseError", async (_name, responder, circumstance) => {
		respondToEveryCreate(responder);
		for (const [, call, reconcile] of creates("2.0")) {
			const error = expectUnknown(await rejection(call()), reconcile, circumstance);
			expect(error.cause).toBeInstanceOf(InvalidResponseError);
		}
	});

	test("a signed 2.1 payload that is not JSON: OutcomeUnknownError, caused by an InvalidResponseError", async () => {
		const notJson = { payload: "not json", signVersion: "2.1", signature: signText("not json", keys.gatewayPrivate) };
		respondToEveryCreate(() => Response.json(notJson));
		for (const [, call, reconcile] of creates("2.1")) {
			const error = expectUnknown(await rejection(call()), reconcile, /could not be read/);
			expect(error.cause).toBeInstanceOf(InvalidResponseError);
		}
	});

	test("a 4xx page that is not JSON was a refusal, not an unknown outcome", async () => {
		fixture.next("/v2/card/api", () => new Response("<h1>Bad Request</h1>", { status: 400 }));
		const error = await rejection(fixture.client().card.charge(cardParams()));
		expect(error).toBeInstanceOf(InvalidResponseError);
		expect(error).not.toBeInstanceOf(OutcomeUnknownError);
	});

	test("queries: a tampered or unsigned response is still a SignatureVerificationError", async () => {
		const signed = signedFlat(transaction(), "2.0");
		fixture.next("/v2/checkout/query", () => Response.json({ ...signed, amount: 1000 }));
		const tampered = await rejection(fixture.client().transactions.retrieve(ids.transaction));
		expect(tampered).toBeInstanceOf(SignatureVerificationError);
		fixture.next("/v2/refund/query", () => Response.json({ status: "success", message: null, data: refund() }));
		const unsigned = await rejection(fixture.client().refunds.retrieve(ids.refund));
		expect(unsigned).toBeInstanceOf(SignatureVerificationError);
	});
});
