import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { GatewayFixture } from "../fixtures/gateway.js";
import { ids } from "../fixtures/gateway-messages.js";
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
		expect(session).toEqual({ transactionId: ids.transaction, paymentLink: expect.stringContaining(ids.transaction), message: "Checkout session created" });
		const [received] = fixture.received;
		expect(received?.signVersion).toBe(version);
		expect(received?.fields).toMatchObject({ merchantId: "M-1001", orderRef: "ORD-1", amount: 10.5, metadata: { cartId: 42 } });
		expect(received?.headers.get("user-agent")).toMatch(/^merchant-gateway\/\d+\.\d+\.\d+ node\/\d+/);
		expect(received?.headers.get("content-type")).toBe("application/json");
	});

	test("card.charge forces card/API and returns outcome success", async () => {
		fixture.reset(version);
		const result = await gateway.card.charge(cardParams());
		expect(result).toEqual({ outcome: "success", transactionId: ids.transaction, message: "Transaction successful" });
		expect(fixture.received[0]?.fields).toMatchObject({ paymentMethod: "card", connectionMode: "API", cardNumber: CARD });
	});

	test("transactions.retrieve returns the full Transaction", async () => {
		fixture.reset(version);
		const transaction = await gateway.transactions.retrieve(ids.transaction);
		expect(transaction.status).toBe("successful");
		expect(transaction.fees?.buyer).toBe(0.32);
		expect(transaction.paymentMethodDetails?.card?.lastFourDigits).toBe("1111");
		expect(fixture.received[0]?.fields).toEqual({ merchantId: "M-1001", transactionId: ids.transaction });
	});

	test("refunds.create returns approval processed when message is null", async () => {
		fixture.reset(version);
		const created = await gateway.refunds.create({ transactionId: ids.transaction, amount: 5, reason: "size" });
		expect(created).toEqual({ refundId: ids.refund, refundNumber: "RF-000045", approval: "processed", message: null });
	});

	test("refunds.retrieve returns the Refund", async () => {
		fixture.reset(version);
		const refund = await gateway.refunds.retrieve(ids.refund);
		expect(refund).toMatchObject({ refundId: ids.refund, status: "refund_successful", statusCode: 11, refundAmount: 5 });
	});
});
