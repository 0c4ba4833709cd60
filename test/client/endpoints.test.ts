import { HttpResponse } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { GatewayFixture } from "../fixtures/gateway.js";
import { ids, refund, signedFlat, signedWrapped, transaction } from "../fixtures/gateway-messages.js";
import { CARD, cardParams, checkoutParams, makeClient } from "./helpers.js";

const fixture = new GatewayFixture();
beforeAll(() => fixture.server.listen({ onUnhandledFrame: "error" }));
afterEach(() => fixture.server.resetHandlers());
afterAll(() => fixture.server.close());

describe.each(["2.0", "2.1"] as const)("every endpoint, signing version %s", (version) => {
	const gateway = makeClient({ signVersion: version });

	test("checkout.create sends a signed request and returns the verified session", async () => {
		fixture.reset(version);
		const session = await gateway.checkout.create(checkoutParams({ metadata: { cartId: 42 } }));
		expect(session).toEqual({
			transactionId: ids.transaction,
			paymentLink: expect.stringContaining(ids.transaction),
			message: "Checkout session created",
		});
		const [received] = fixture.received;
		expect(received?.signVersion).toBe(version);
		expect(received?.fields).toMatchObject({
			merchantId: "M-1001",
			orderRef: "ORD-1",
			amount: 10.5,
			metadata: { cartId: 42 },
		});
		expect(received?.headers.get("user-agent")).toMatch(/^merchant-gateway\/\d+\.\d+\.\d+ node\/\d+/);
		expect(received?.headers.get("content-type")).toBe("application/json");
	});

	test("card.charge forces card/API and returns outcome success", async () => {
		fixture.reset(version);
		const result = await gateway.card.charge(cardParams());
		expect(result).toEqual({ outcome: "success", transactionId: ids.transaction, message: "Transaction successful" });
		expect(fixture.received[0]?.fields).toMatchObject({
			paymentMethod: "card",
			connectionMode: "API",
			cardNumber: CARD,
		});
	});

	test("transactions.retrieve returns the full Transaction", async () => {
		fixture.reset(version);
		const transaction = await gateway.transactions.retrieve(ids.transaction);
		expect(transaction.status).toBe("successful");
		expect(transaction.fees?.buyer).toBe(0.32);
		expect(transaction.paymentMethodDetails?.card?.lastFourDigits).toBe("1111");
	});

	test("refunds.create returns approval processed when message is null", async () => {
		fixture.reset(version);
		const created = await gateway.refunds.create({ transactionId: ids.transaction, amount: 5, reason: "size" });
		expect(created).toEqual({ refundId: ids.refund, refundNumber: "RF-000045", approval: "processed", message: null });
	});

	test("refunds.retrieve returns the Refund", async () => {
		fixture.reset(version);
		const refund = await gateway.refunds.retrieve(ids.refund);
		expect(refund).toMatchObject({
			refundId: ids.refund,
			status: "refund_successful",
			statusCode: 11,
			refundAmount: 5,
		});
	});

	// D11: the query and refund tables have no merchantId; the option puts it back, signed like every field.
	const sentBody = (raw: string): Record<string, unknown> => {
		const envelope = JSON.parse(raw) as Record<string, unknown>;
		if (version === "2.0") return envelope;
		expect(Object.keys(envelope).sort()).toEqual(["payload", "signVersion", "signature"]);
		return JSON.parse(String(envelope.payload)) as Record<string, unknown>;
	};
	const calls = (client: ReturnType<typeof makeClient>) => [
		() => client.transactions.retrieve(ids.transaction),
		() => client.refunds.create({ transactionId: ids.transaction, amount: 5, reason: "size" }),
		() => client.refunds.retrieve(ids.refund),
	];

	test("queries and refunds carry no merchantId by default (D11): the exact bodies sent", async () => {
		fixture.reset(version);
		for (const call of calls(gateway)) await call();
		const sent = fixture.received.map((r) => sentBody(r.raw));
		const signed = version === "2.0" ? { signature: expect.any(String) } : {};
		expect(sent).toEqual([
			{ transactionId: ids.transaction, ...signed },
			{ transactionId: ids.transaction, amount: 5, reason: "size", ...signed },
			{ refundId: ids.refund, ...signed },
		]);
		for (const received of fixture.received) expect(received.raw).not.toContain("merchantId");
	});

	test("alwaysSendMerchantId: true adds merchantId to queries and refunds, first and signed", async () => {
		fixture.reset(version);
		for (const call of calls(makeClient({ signVersion: version, alwaysSendMerchantId: true }))) await call();
		const sent = fixture.received.map((r) => sentBody(r.raw));
		const signed = version === "2.0" ? { signature: expect.any(String) } : {};
		expect(sent).toEqual([
			{ merchantId: "M-1001", transactionId: ids.transaction, ...signed },
			{ merchantId: "M-1001", transactionId: ids.transaction, amount: 5, reason: "size", ...signed },
			{ merchantId: "M-1001", refundId: ids.refund, ...signed },
		]);
		for (const body of sent) expect(Object.keys(body)[0]).toBe("merchantId");
	});

	test("the answer's id may differ in case from the one asked for (ULIDs; the gateway writes lowercase)", async () => {
		fixture.reset(version);
		// The fixture's answers name the uppercase ids; the merchant asks in lowercase.
		fixture.next("/v2/checkout/query", () => HttpResponse.json(signedFlat(transaction(ids.transaction), version)));
		const found = signedWrapped("success", null, refund(ids.refund), version);
		fixture.next("/v2/refund/query", () => HttpResponse.json(found));
		expect((await gateway.transactions.retrieve(ids.transaction.toLowerCase())).transactionId).toBe(ids.transaction);
		expect((await gateway.refunds.retrieve(ids.refund.toLowerCase())).refundId).toBe(ids.refund);
	});
});
