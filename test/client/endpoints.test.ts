import { describe, expect, test } from "vitest";
import { MESSAGES } from "../../src/sandbox/books/gateway-messages.js";
import { ids, refund, signedFlat, signedWrapped, transaction } from "../support/gateway-messages.js";
import { ACCOUNTS, uniqueRef, useGateway } from "./gateway.js";
import { CARD, cardParams, checkoutParams } from "./helpers.js";

const gateway = useGateway();
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

describe.each(["2.0", "2.1"] as const)("every endpoint against the sandbox, signing version %s", (version) => {
	const client = (overrides = {}) => gateway.client({ signVersion: version, ...overrides });
	const merchantId = ACCOUNTS[version];

	test("checkout.create sends a signed request and returns the verified session", async () => {
		const orderRef = uniqueRef();
		const session = await client().checkout.create(checkoutParams({ orderRef, metadata: { cartId: 42 } }));
		expect(session).toEqual({
			transactionId: expect.stringMatching(ULID),
			paymentLink: expect.stringContaining(session.transactionId),
			message: MESSAGES.checkoutCreated,
		});
		const [received] = gateway.received("/v2/checkout");
		expect(received?.signVersion).toBe(version);
		expect(received?.verified).toBe(true);
		expect(received?.fields).toMatchObject({ merchantId, orderRef, amount: 10.5, metadata: { cartId: 42 } });
		expect(received?.headers.get("user-agent")).toMatch(/^merchant-gateway\/\d+\.\d+\.\d+ node\/\d+/);
		expect(received?.headers.get("content-type")).toBe("application/json");
		expect(gateway.sandbox.transaction(session.transactionId)?.ref).toBe(orderRef);
	});

	test("card.charge forces card/API and returns outcome success", async () => {
		const result = await client().card.charge(cardParams({ orderRef: uniqueRef() }));
		expect(result).toEqual({
			outcome: "success",
			transactionId: expect.stringMatching(ULID),
			message: MESSAGES.chargeCompleted,
		});
		expect(gateway.received("/v2/card/api")[0]?.fields).toMatchObject({
			paymentMethod: "card",
			connectionMode: "API",
			cardNumber: CARD,
		});
	});

	test("transactions.retrieve returns the full Transaction", async () => {
		const transactionId = await gateway.chargedTransaction(version);
		const found = await client().transactions.retrieve(transactionId);
		expect(found).toMatchObject({ transactionId, status: "successful", statusCode: 6, amount: 99.99 });
		expect(found.fees?.buyer).toEqual(expect.any(Number));
		expect(found.paymentMethodDetails?.card?.lastFourDigits).toBe("1111");
	});

	test("refunds.create returns approval processed when message is null; refunds.retrieve the Refund", async () => {
		const transactionId = await gateway.chargedTransaction(version);
		const created = await client().refunds.create({ transactionId, amount: 5, reason: "size" });
		expect(created).toEqual({
			refundId: expect.stringMatching(ULID),
			refundNumber: expect.any(String),
			approval: "processed",
			message: null,
		});
		const found = await client().refunds.retrieve(created.refundId);
		expect(found).toMatchObject({
			refundId: created.refundId,
			transactionId,
			status: "refund_successful",
			statusCode: 11,
			refundAmount: 5,
		});
	});

	// The query and refund tables have no merchantId; the option puts it back, signed like every field.
	const sentBody = (raw: string): Record<string, unknown> => {
		const envelope = JSON.parse(raw) as Record<string, unknown>;
		if (version === "2.0") return envelope;
		expect(Object.keys(envelope).sort()).toEqual(["payload", "signVersion", "signature"]);
		return JSON.parse(String(envelope.payload)) as Record<string, unknown>;
	};
	/** A query, a refund and a refund query of a charged transaction: the three bodies sent. */
	async function queryAndRefund(overrides = {}) {
		const transactionId = await gateway.chargedTransaction(version);
		gateway.reset();
		const refunding = client(overrides);
		await refunding.transactions.retrieve(transactionId);
		const { refundId } = await refunding.refunds.create({ transactionId, amount: 5, reason: "size" });
		await refunding.refunds.retrieve(refundId);
		const received = gateway.received();
		expect(received.map((r) => [r.path, r.verified])).toEqual([
			["/v2/checkout/query", true],
			["/v2/refund", true],
			["/v2/refund/query", true],
		]);
		return { transactionId, refundId, raws: received.map((r) => r.raw) };
	}

	test("queries and refunds carry no merchantId by default: the exact bodies sent", async () => {
		const { transactionId, refundId, raws } = await queryAndRefund();
		const signed = version === "2.0" ? { signature: expect.any(String) } : {};
		expect(raws.map(sentBody)).toEqual([
			{ transactionId, ...signed },
			{ transactionId, amount: 5, reason: "size", ...signed },
			{ refundId, ...signed },
		]);
		for (const raw of raws) expect(raw).not.toContain("merchantId");
	});

	test("alwaysSendMerchantId: true adds merchantId to queries and refunds, first and signed", async () => {
		const { transactionId, refundId, raws } = await queryAndRefund({ alwaysSendMerchantId: true });
		const sent = raws.map(sentBody);
		const signed = version === "2.0" ? { signature: expect.any(String) } : {};
		expect(sent).toEqual([
			{ merchantId, transactionId, ...signed },
			{ merchantId, transactionId, amount: 5, reason: "size", ...signed },
			{ merchantId, refundId, ...signed },
		]);
		for (const body of sent) expect(Object.keys(body)[0]).toBe("merchantId");
	});

	test("the response's id may differ in case from the one asked for (ULID; the gateway writes lowercase)", async () => {
		// The responses name the uppercase ids; the merchant asks in lowercase.
		gateway.next("/v2/checkout/query", () => Response.json(signedFlat(transaction(ids.transaction), version)));
		const found = signedWrapped("success", null, refund(ids.refund), version);
		gateway.next("/v2/refund/query", () => Response.json(found));
		expect((await client().transactions.retrieve(ids.transaction.toLowerCase())).transactionId).toBe(ids.transaction);
		expect((await client().refunds.retrieve(ids.refund.toLowerCase())).refundId).toBe(ids.refund);
	});
});
