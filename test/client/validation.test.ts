import { describe, expect, test } from "vitest";
import { RequestValidationError } from "../../src/index.js";
import { checkoutRequestSchema } from "../../src/schemas/requests.js";
import { ids } from "../support/gateway-messages.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams, makeClient } from "./helpers.js";

const checkout = { merchantId: "M-1001", ...checkoutParams() };

describe("the client validates before sending", () => {
	const fixture = useGateway();

	test("RequestValidationError lists every failing field with its rule, and nothing is sent", async () => {
		const error = await fixture
			.client()
			.card.charge(
				cardParams({ amount: 0.5, cardMonth: "13", currency: "usd", billingCountry: "CA", billingState: undefined }),
			)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(RequestValidationError);
		const issues = (error as RequestValidationError).issues;
		expect(issues.map((issue) => issue.field).sort()).toEqual(["amount", "billingState", "cardMonth", "currency"]);
		expect((error as RequestValidationError).path).toBe("/v2/card/api");
		expect(fixture.received()).toEqual([]);
	});

	test("unknown or reserved parameters are refused (a typo is not silently dropped)", async () => {
		const error = await fixture
			.client()
			.checkout.create({ ...checkoutParams(), billingFirstname: "Ana", merchantId: "other" } as never)
			.catch((e: unknown) => e);
		expect((error as RequestValidationError).issues).toEqual([
			{ field: "billingFirstname", message: "is not a field of this request" },
			{ field: "merchantId", message: "is not a field of this request" },
		]);
	});

	test("S2S params may not carry paymentMethod or connectionMode", async () => {
		const error = await fixture
			.client()
			.card.charge({ ...cardParams(), paymentMethod: "card" } as never)
			.catch((e: unknown) => e);
		expect((error as RequestValidationError).issues[0]?.field).toBe("paymentMethod");
	});

	test("checkout.create with connectionMode DIRECT_POST points to directPost()", async () => {
		const error = await fixture
			.client()
			.checkout.create(checkoutParams({ connectionMode: "DIRECT_POST" }))
			.catch((e: unknown) => e);
		expect((error as RequestValidationError).issues[0]).toEqual({
			field: "connectionMode",
			message: expect.stringContaining("directPost"),
		});
	});

	test("queries validate their id", async () => {
		await expect(fixture.client().transactions.retrieve("not-a-ulid")).rejects.toBeInstanceOf(RequestValidationError);
		await expect(fixture.client().refunds.retrieve("")).rejects.toBeInstanceOf(RequestValidationError);
		await expect(
			fixture.client().refunds.create({ transactionId: ids.transaction, amount: 0.05 }),
		).rejects.toBeInstanceOf(RequestValidationError);
	});

	test("loopback http URLs pass through the client with allowLoopbackHttp", async () => {
		const message = checkoutRequestSchema({ allowLoopbackHttp: true }).safeParse({
			...checkout,
			callbackUrl: "http://localhost:3000/cb",
		});
		expect(message.success).toBe(true);
		// A client without allowLoopbackHttp (it needs none to reach an https gateway): refused before sending.
		await expect(
			makeClient().checkout.create(checkoutParams({ callbackUrl: "http://localhost:3000/cb" })),
		).rejects.toBeInstanceOf(RequestValidationError);
	});
});
