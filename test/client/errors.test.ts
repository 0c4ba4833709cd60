import { beforeAll, describe, expect, test } from "vitest";
import {
	AuthenticationError,
	CheckoutError,
	type GatewayClient,
	GatewayValidationError,
	NoS2SProviderError,
	OutcomeUnknownError,
	ProcessingError,
	RateLimitError,
} from "../../src/index.js";
import { ids, signedFlat, signedWrapped, transaction } from "../support/gateway-messages.js";
import { keys } from "../support/vectors.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams, failure } from "./helpers.js";

const fixture = useGateway();
const makeClient = fixture.client;
let gateway: GatewayClient;
beforeAll(() => {
	gateway = makeClient();
});

describe("the spec's Errors table", () => {
	test("422 with errors[] on checkout, S2S and refund -> GatewayValidationError with field and messages", async () => {
		for (const [path, call] of [
			["/v2/checkout", () => gateway.checkout.create(checkoutParams())],
			["/v2/card/api", () => gateway.card.charge(cardParams())],
			["/v2/refund", () => gateway.refunds.create({ transactionId: ids.transaction, amount: 500 })],
		] as const) {
			fixture.next(path, () =>
				Response.json(
					{
						status: "error",
						message: "Validation failed",
						errors: [{ field: "amount", message: ["exceeds the refundable amount"] }],
					},
					{ status: 422 },
				),
			);
			const error = await failure(call());
			expect(error).toBeInstanceOf(GatewayValidationError);
			expect((error as GatewayValidationError).errors).toEqual([
				{ field: "amount", messages: ["exceeds the refundable amount"] },
			]);
			expect(error.status).toBe(422);
			expect(error.path).toBe(path);
			expect(error.message).toContain("amount: exceeds the refundable amount");
		}
	});

	// Found by the fuzz suite: String() on these threw a RangeError (stack overflow) or a TypeError out of the client.
	test.each([
		["nested 100,000 levels deep", `${"[".repeat(100_000)}"x"${"]".repeat(100_000)}`],
		["an object naming a toString member", '{"toString":"x"}'],
		["an object whose toString and valueOf are not functions", '{"toString":1,"valueOf":[]}'],
	])("422 errors[] whose field and message are %s -> GatewayValidationError", async (_, odd) => {
		const body =
			'{"status":"error","message":"Validation failed",' +
			`"errors":[{"field":${odd},"message":[${odd},"too large"]}]}`;
		fixture.next(
			"/v2/refund",
			() => new Response(body, { status: 422, headers: { "content-type": "application/json" } }),
		);
		const error = await failure(gateway.refunds.create({ transactionId: ids.transaction, amount: 500 }));
		expect(error).toBeInstanceOf(GatewayValidationError);
		const [entry] = (error as GatewayValidationError).errors;
		expect(entry?.messages).toHaveLength(2);
		expect(entry?.messages[1]).toBe("too large");
	});

	test.each([400, 500])("S2S processing error %i with data.transactionId -> ProcessingError", async (status) => {
		fixture.next("/v2/card/api", () =>
			Response.json(
				{ status: "error", message: "Card declined by issuer", data: { transactionId: ids.transaction } },
				{ status },
			),
		);
		const error = await failure(gateway.card.charge(cardParams()));
		expect(error).toBeInstanceOf(ProcessingError);
		expect((error as ProcessingError).transactionId).toBe(ids.transaction);
		expect(error.status).toBe(status);
		expect(error.message).toContain("Card declined by issuer");
		expect(fixture.count("/v2/card/api")).toBe(1);
	});

	test("422 with top-level transactionId null and no errors -> NoS2SProviderError", async () => {
		fixture.next("/v2/card/api", () =>
			Response.json({ status: "error", transactionId: null, message: "No S2S provider configured" }, { status: 422 }),
		);
		const error = await failure(gateway.card.charge(cardParams()));
		expect(error).toBeInstanceOf(NoS2SProviderError);
		expect(error.status).toBe(422);
		expect(error.message).toContain("use checkout");
	});

	test.each([200, 400, 500])("checkout creation failure body (HTTP %i) -> CheckoutError", async (status) => {
		fixture.next("/v2/checkout", () =>
			Response.json(
				{ status: "error", transactionId: null, paymentLink: null, message: "Domain not allowed" },
				{ status },
			),
		);
		const error = await failure(gateway.checkout.create(checkoutParams()));
		expect(error).toBeInstanceOf(CheckoutError);
		expect(error.message).toContain("Domain not allowed");
		expect(error.status).toBe(status);
	});

	test.each([401, 403])("%i -> AuthenticationError", async (status) => {
		fixture.next("/v2/checkout/query", () =>
			Response.json({ status: "error", message: "Invalid signature" }, { status }),
		);
		const error = await failure(gateway.transactions.retrieve(ids.transaction));
		expect(error).toBeInstanceOf(AuthenticationError);
		expect(error.status).toBe(status);
		expect(fixture.count("/v2/checkout/query")).toBe(1);
	});

	test("HTTP 500 'Invalid signature with merchantId' -> AuthenticationError everywhere, never retried", async () => {
		const body = { status: "error", message: "Invalid signature with merchantId: M-1001" };
		const refusal = () => Response.json(body, { status: 500 });
		for (const [path, call] of [
			["/v2/checkout", () => gateway.checkout.create(checkoutParams())],
			["/v2/card/api", () => gateway.card.charge(cardParams())],
			["/v2/refund", () => gateway.refunds.create({ transactionId: ids.transaction, amount: 1 })],
			["/v2/checkout/query", () => gateway.transactions.retrieve(ids.transaction)],
			["/v2/refund/query", () => gateway.refunds.retrieve(ids.refund)],
		] as const) {
			fixture.reset();
			fixture.next(path, refusal, refusal, refusal);
			const error = await failure(call());
			expect(error, path).toBeInstanceOf(AuthenticationError);
			expect(error).not.toBeInstanceOf(OutcomeUnknownError);
			expect(error.status).toBe(500);
			expect(error.message).toContain("Invalid signature with merchantId: M-1001");
			// A refused signature does not get better by sending it again, queries included.
			expect(fixture.count(path)).toBe(1);
		}
		// Any other HTTP 500 keeps its meaning: a query is still retried.
		fixture.reset();
		const other = { status: "error", message: "Invalid signature cache state" };
		const broken = () => Response.json(other, { status: 500 });
		fixture.next("/v2/checkout/query", broken, broken, broken);
		expect(await failure(gateway.transactions.retrieve(ids.transaction))).toBeInstanceOf(ProcessingError);
		expect(fixture.count("/v2/checkout/query")).toBe(3);
	});

	test("a request signed with the wrong merchant key is refused by the gateway -> AuthenticationError", async () => {
		const wrong = makeClient({ privateKey: keys.gatewayPrivate });
		const error = await failure(wrong.checkout.create(checkoutParams()));
		expect(error).toBeInstanceOf(AuthenticationError);
	});

	test("429 on a create -> RateLimitError with retryAfterSeconds, not retried", async () => {
		fixture.next("/v2/refund", () =>
			Response.json({ status: "error", message: "slow down" }, { status: 429, headers: { "retry-after": "7" } }),
		);
		const error = await failure(gateway.refunds.create({ transactionId: ids.transaction, amount: 1 }));
		expect(error).toBeInstanceOf(RateLimitError);
		expect((error as RateLimitError).retryAfterSeconds).toBe(7);
		expect(fixture.count("/v2/refund")).toBe(1);
	});

	test("error responses of the query endpoints -> ProcessingError carrying the queried id", async () => {
		fixture.next("/v2/checkout/query", () =>
			Response.json({ status: "error", message: "Transaction not found" }, { status: 404 }),
		);
		const error = await failure(gateway.transactions.retrieve(ids.transaction));
		expect(error).toBeInstanceOf(ProcessingError);
		expect((error as ProcessingError).transactionId).toBe(ids.transaction);
		expect(error.status).toBe(404);
	});
});

describe("success variants", () => {
	test("card.charge redirect -> outcome redirect with redirectUrl", async () => {
		fixture.next("/v2/card/api", () =>
			Response.json(
				signedWrapped(
					"redirect",
					"3DS required",
					{ transactionId: ids.transaction, url: "https://acs.example/3ds?t=1" },
					"2.0",
				),
			),
		);
		await expect(gateway.card.charge(cardParams())).resolves.toEqual({
			outcome: "redirect",
			transactionId: ids.transaction,
			redirectUrl: "https://acs.example/3ds?t=1",
			message: "3DS required",
		});
	});

	// The wrapper's status is unsigned; a signed data.url is the evidence of a 3DS redirect.
	test.each(["2.0", "2.1"] as const)("signed data.url, unsigned status 'success' -> redirect (%s)", async (version) => {
		const data = { transactionId: ids.transaction, url: "https://acs.example/3ds?t=2" };
		const signed = signedWrapped("success", "Transaction successful", data, version);
		fixture.next("/v2/card/api", () => Response.json(signed));
		const result = await makeClient({ signVersion: version }).card.charge(cardParams());
		expect(result).toEqual({
			outcome: "redirect",
			transactionId: ids.transaction,
			redirectUrl: "https://acs.example/3ds?t=2",
			message: "Transaction successful",
		});
	});

	test("card.charge pending -> outcome pending (2.1)", async () => {
		fixture.next("/v2/card/api", () =>
			Response.json(signedWrapped("pending", "pending", { transactionId: ids.transaction }, "2.1")),
		);
		const result = await makeClient({ signVersion: "2.1" }).card.charge(cardParams());
		expect(result).toEqual({ outcome: "pending", transactionId: ids.transaction, message: "pending" });
	});

	test("refunds.create held for approval -> approval pending_approval", async () => {
		fixture.next("/v2/refund", () =>
			Response.json(
				signedWrapped(
					"success",
					"Refund created and waiting for approval",
					{ refundId: ids.refund, refundNumber: "RF-1" },
					"2.0",
				),
			),
		);
		const created = await gateway.refunds.create({ transactionId: ids.transaction, amount: 0.1 });
		expect(created.approval).toBe("pending_approval");
		expect(created.message).toBe("Refund created and waiting for approval");
	});

	test("an unknown transaction status is kept (D8)", async () => {
		fixture.next("/v2/checkout/query", () =>
			Response.json(signedFlat({ ...transaction(), status: "chargeback_pending", statusCode: 99 }, "2.0")),
		);
		const found = await gateway.transactions.retrieve(ids.transaction);
		expect(found.status).toBe("chargeback_pending");
	});
});
