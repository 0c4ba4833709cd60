import { beforeAll, describe, expect, test } from "vitest";
import {
	CheckoutError,
	type GatewayClient,
	InvalidResponseError,
	OutcomeUnknownError,
	SignatureVerificationError,
} from "../../src/index.js";
import { checkoutCreated, ids, refund, signedFlat, signedWrapped, transaction } from "../support/gateway-messages.js";
import { keys } from "../support/vectors.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams, failure } from "./helpers.js";

/** Success responses that cannot be trusted: unsigned, signed by another key, tampered, off-schema. */
const fixture = useGateway();
const makeClient = fixture.client;
let gateway: GatewayClient;
beforeAll(() => {
	gateway = makeClient();
});

describe("malformed, unsigned and badly signed responses", () => {
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

	// A create whose response cannot be read may have been processed: OutcomeUnknownError, the reading failure as cause.
	test("signed but off-schema creation response -> OutcomeUnknownError, cause naming the field", async () => {
		const { paymentLink: _dropped, ...withoutLink } = checkoutCreated();
		fixture.next("/v2/checkout", () => Response.json(signedFlat(withoutLink, "2.0")));
		const error = await failure(gateway.checkout.create(checkoutParams()));
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect(error.cause).toBeInstanceOf(InvalidResponseError);
		expect((error.cause as Error).message).toContain("paymentLink");
	});

	test("a card response, unknown wrapper status -> OutcomeUnknownError, cause InvalidResponseError", async () => {
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

	test("unsigned creation response -> OutcomeUnknownError, cause missing_signature", async () => {
		fixture.next("/v2/checkout", () => Response.json(checkoutCreated()));
		const error = await failure(gateway.checkout.create(checkoutParams()));
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect(error.cause).toBeInstanceOf(SignatureVerificationError);
		expect((error.cause as SignatureVerificationError).reason).toBe("missing_signature");
		expect(error.path).toBe("/v2/checkout");
		expect(error.status).toBe(200);
	});

	test("unsigned creation responses pass with requireSignedResponses: false (flat and wrapped)", async () => {
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

	test("unsigned query responses are refused even with requireSignedResponses: false", async () => {
		const lenient = makeClient({ requireSignedResponses: false });
		fixture.next("/v2/checkout/query", () => Response.json(transaction()));
		await expect(lenient.transactions.retrieve(ids.transaction)).rejects.toBeInstanceOf(SignatureVerificationError);
		fixture.next("/v2/refund/query", () => Response.json({ status: "success", message: null, data: refund() }));
		await expect(lenient.refunds.retrieve(ids.refund)).rejects.toBeInstanceOf(SignatureVerificationError);
	});

	test.each(["2.0", "2.1"] as const)(
		"a response signed with another key -> SignatureVerificationError mismatch (%s)",
		async (version) => {
			fixture.next("/v2/checkout/query", () => Response.json(signedFlat(transaction(), version, keys.merchantPrivate)));
			const error = await failure(makeClient({ signVersion: version }).transactions.retrieve(ids.transaction));
			expect(error).toBeInstanceOf(SignatureVerificationError);
			expect((error as SignatureVerificationError).reason).toBe("mismatch");
		},
	);

	test.each(["2.0", "2.1"] as const)(
		"a query verified with the wrong gateway key names the settings to check, in a create's words (%s)",
		async (version) => {
			const client = makeClient({ signVersion: version });
			const hint = `check gatewayPublicKey (and signVersion ("${version}" here))`;
			const wrongKey = keys.merchantPrivate;
			fixture.next("/v2/checkout/query", () => Response.json(signedFlat(transaction(), version, wrongKey)));
			const transactionQuery = await failure(client.transactions.retrieve(ids.transaction));
			expect(transactionQuery.message).toBe(
				`The signature does not match the message with any of the 1 configured public key(s): ${hint}.`,
			);
			fixture.next("/v2/refund/query", () =>
				Response.json(signedWrapped("success", null, refund(), version, wrongKey)),
			);
			const refundQuery = await failure(client.refunds.retrieve(ids.refund));
			expect((refundQuery as SignatureVerificationError).reason).toBe("mismatch");
			expect(refundQuery.message).toContain(`: ${hint}.`);
			fixture.next("/v2/checkout", () => Response.json(signedFlat(checkoutCreated(), version, wrongKey)));
			const create = await failure(client.checkout.create(checkoutParams()));
			expect(create).toBeInstanceOf(OutcomeUnknownError);
			expect(create.message).toContain(`matches no configured key: ${hint}.`);
		},
	);

	test.each(["2.0", "2.1"] as const)(
		"a __proto__ member in signed metadata comes back as an own data property, prototypes unchanged (%s)",
		async (version) => {
			const metadata = () => JSON.parse('{"__proto__":{"gift":true},"cartId":42}');
			const client = makeClient({ signVersion: version });
			const expectSigned = (record: Record<string, unknown> | null | undefined) => {
				expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
				expect(Object.keys(record ?? {})).toEqual(["__proto__", "cartId"]);
				expect(Object.getOwnPropertyDescriptor(record, "__proto__")?.value).toEqual({ gift: true });
				expect(({} as Record<string, unknown>).gift).toBeUndefined();
			};
			fixture.next("/v2/checkout/query", () =>
				Response.json(signedFlat({ ...transaction(), metadata: metadata() }, version)),
			);
			expectSigned((await client.transactions.retrieve(ids.transaction)).metadata);
			const signed = signedWrapped("success", null, { ...refund(), metadata: metadata() }, version);
			fixture.next("/v2/refund/query", () => Response.json(signed));
			expectSigned((await client.refunds.retrieve(ids.refund)).metadata);
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

	test("a response in the other signing version is refused (the account's version is pinned)", async () => {
		fixture.next("/v2/checkout/query", () => Response.json(signedFlat(transaction(), "2.1")));
		const error = await failure(gateway.transactions.retrieve(ids.transaction));
		expect((error as SignatureVerificationError).reason).toBe("version_not_accepted");
	});

	test("a signed response about another transaction -> InvalidResponseError", async () => {
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
