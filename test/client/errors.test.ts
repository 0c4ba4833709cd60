import { beforeAll, describe, expect, test } from "vitest";
import type { GatewayClient } from "../../src/client.js";
import {
	AuthenticationError,
	CheckoutError,
	GatewayError,
	GatewayValidationError,
	InvalidResponseError,
	NoS2SProviderError,
	OutcomeUnknownError,
	ProcessingError,
	RateLimitError,
	SignatureVerificationError,
} from "../../src/errors/index.js";
import { keys } from "../helpers/vectors.js";
import { checkoutCreated, ids, refund, signedFlat, signedWrapped, transaction } from "../support/gateway-messages.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams } from "./helpers.js";

const fixture = useGateway();
const makeClient = fixture.client;
let gateway: GatewayClient;
beforeAll(() => {
	gateway = makeClient();
});

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
	try {
		await promise;
	} catch (error) {
		expect(error).toBeInstanceOf(GatewayError);
		return error as GatewayError;
	}
	throw new Error("expected the call to fail");
}

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
		const body = `{"status":"error","message":"Validation failed","errors":[{"field":${odd},"message":[${odd},"too large"]}]}`;
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

	test("error answers of the query endpoints -> ProcessingError carrying the queried id", async () => {
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
		const answer = signedWrapped("success", "Transaction successful", data, version);
		fixture.next("/v2/card/api", () => Response.json(answer));
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

describe("malformed, unsigned and badly signed answers", () => {
	test("non-JSON 200 -> InvalidResponseError with status and a short excerpt", async () => {
		fixture.next(
			"/v2/checkout/query",
			() => new Response(`<html>${"x".repeat(500)}</html>`, { status: 200, headers: { "content-type": "text/html" } }),
		);
		const error = await failure(gateway.transactions.retrieve(ids.transaction));
		expect(error).toBeInstanceOf(InvalidResponseError);
		expect(error.status).toBe(200);
		expect((error as InvalidResponseError).excerpt?.startsWith("<html>")).toBe(true);
		expect((error as InvalidResponseError).excerpt?.length).toBeLessThanOrEqual(201);
	});

	test("a JSON array body -> InvalidResponseError", async () => {
		fixture.next("/v2/refund/query", () => Response.json([1, 2]));
		await expect(gateway.refunds.retrieve(ids.refund)).rejects.toBeInstanceOf(InvalidResponseError);
	});

	// A create whose answer cannot be read may have been processed: OutcomeUnknownError, the reading failure as cause.
	test("signed but off-schema creation answer -> OutcomeUnknownError, cause naming the field", async () => {
		const { paymentLink: _dropped, ...withoutLink } = checkoutCreated();
		fixture.next("/v2/checkout", () => Response.json(signedFlat(withoutLink, "2.0")));
		const error = await failure(gateway.checkout.create(checkoutParams()));
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect(error.cause).toBeInstanceOf(InvalidResponseError);
		expect((error.cause as Error).message).toContain("paymentLink");
	});

	test("a card answer with an unknown wrapper status -> OutcomeUnknownError, cause InvalidResponseError", async () => {
		fixture.next("/v2/card/api", () =>
			Response.json(signedWrapped("maybe", null, { transactionId: ids.transaction }, "2.0")),
		);
		const error = await failure(gateway.card.charge(cardParams()));
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect(error.cause).toBeInstanceOf(InvalidResponseError);
	});

	test("a redirect without data.url -> OutcomeUnknownError, cause InvalidResponseError", async () => {
		fixture.next("/v2/card/api", () =>
			Response.json(signedWrapped("redirect", null, { transactionId: ids.transaction }, "2.0")),
		);
		const error = await failure(gateway.card.charge(cardParams()));
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error.cause as Error).message).toContain("data.url");
	});

	test("unsigned creation answer -> OutcomeUnknownError, cause missing_signature", async () => {
		fixture.next("/v2/checkout", () => Response.json(checkoutCreated()));
		const error = await failure(gateway.checkout.create(checkoutParams()));
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect(error.cause).toBeInstanceOf(SignatureVerificationError);
		expect((error.cause as SignatureVerificationError).reason).toBe("missing_signature");
		expect(error.path).toBe("/v2/checkout");
		expect(error.status).toBe(200);
	});

	test("unsigned creation answers pass with requireSignedResponses: false (flat and wrapped)", async () => {
		const lenient = makeClient({ requireSignedResponses: false });
		fixture.next("/v2/checkout", () => Response.json(checkoutCreated()));
		await expect(lenient.checkout.create(checkoutParams())).resolves.toMatchObject({ transactionId: ids.transaction });
		fixture.next("/v2/refund", () =>
			Response.json({ status: "success", message: null, data: { refundId: ids.refund, refundNumber: "RF-1" } }),
		);
		await expect(lenient.refunds.create({ transactionId: ids.transaction, amount: 1 })).resolves.toMatchObject({
			approval: "processed",
		});
	});

	test("unsigned query answers are refused even with requireSignedResponses: false", async () => {
		const lenient = makeClient({ requireSignedResponses: false });
		fixture.next("/v2/checkout/query", () => Response.json(transaction()));
		await expect(lenient.transactions.retrieve(ids.transaction)).rejects.toBeInstanceOf(SignatureVerificationError);
		fixture.next("/v2/refund/query", () => Response.json({ status: "success", message: null, data: refund() }));
		await expect(lenient.refunds.retrieve(ids.refund)).rejects.toBeInstanceOf(SignatureVerificationError);
	});

	test.each(["2.0", "2.1"] as const)(
		"an answer signed with another key -> SignatureVerificationError mismatch (%s)",
		async (version) => {
			fixture.next("/v2/checkout/query", () => Response.json(signedFlat(transaction(), version, keys.merchantPrivate)));
			const error = await failure(makeClient({ signVersion: version }).transactions.retrieve(ids.transaction));
			expect(error).toBeInstanceOf(SignatureVerificationError);
			expect((error as SignatureVerificationError).reason).toBe("mismatch");
		},
	);

	test("a tampered signed field -> SignatureVerificationError", async () => {
		const signed = signedWrapped("success", null, refund(), "2.0");
		(signed.data as Record<string, unknown>).refundAmount = 500;
		fixture.next("/v2/refund/query", () => Response.json(signed));
		await expect(gateway.refunds.retrieve(ids.refund)).rejects.toBeInstanceOf(SignatureVerificationError);
	});

	test("key rotation: any of the configured gateway keys verifies", async () => {
		const charged = await fixture.chargedTransaction();
		const rotating = makeClient({ gatewayPublicKey: [keys.merchantPublic, keys.gatewayPublic] });
		await expect(rotating.transactions.retrieve(charged)).resolves.toMatchObject({ transactionId: charged });
	});

	test("an answer in the other signing version is refused (the account's version is pinned)", async () => {
		fixture.next("/v2/checkout/query", () => Response.json(signedFlat(transaction(), "2.1")));
		const error = await failure(gateway.transactions.retrieve(ids.transaction));
		expect((error as SignatureVerificationError).reason).toBe("version_not_accepted");
	});

	test("a signed answer about another transaction -> InvalidResponseError", async () => {
		fixture.next("/v2/checkout/query", () =>
			Response.json(signedFlat(transaction("01JD5Z8Q4V7M1X2C3B4N5P6R70"), "2.0")),
		);
		await expect(gateway.transactions.retrieve(ids.transaction)).rejects.toBeInstanceOf(InvalidResponseError);
	});

	test("a 2.1 payload that is not JSON -> InvalidResponseError, after verification", async () => {
		const { signText } = await import("../../src/signing/seal.js");
		fixture.next("/v2/checkout/query", () =>
			Response.json({
				payload: "not json",
				signVersion: "2.1",
				signature: signText("not json", keys.gatewayPrivate),
			}),
		);
		await expect(makeClient({ signVersion: "2.1" }).transactions.retrieve(ids.transaction)).rejects.toBeInstanceOf(
			InvalidResponseError,
		);
	});

	test("a 502 proxy page on a create -> OutcomeUnknownError (the gateway may have processed it)", async () => {
		fixture.next("/v2/card/api", () => new Response("Bad Gateway", { status: 502 }));
		const error = await failure(gateway.card.charge(cardParams({ orderRef: "ORD-S2S-1" })));
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as OutcomeUnknownError).orderRef).toBe("ORD-S2S-1");
		expect(fixture.count("/v2/card/api")).toBe(1);
	});
});

test("a checkout failure that arrives signed in a 2.1 payload -> CheckoutError", async () => {
	fixture.next("/v2/checkout", () =>
		Response.json(
			signedFlat({ status: "error", transactionId: null, paymentLink: null, message: "Domain not allowed" }, "2.1"),
		),
	);
	const error = await failure(makeClient({ signVersion: "2.1" }).checkout.create(checkoutParams()));
	expect(error).toBeInstanceOf(CheckoutError);
	expect(error.message).toContain("Domain not allowed");
});
