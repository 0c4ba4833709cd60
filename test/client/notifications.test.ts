import { beforeAll, describe, expect, test } from "vitest";
import { decodeCallback, InvalidNotificationError, SignatureVerificationError } from "../../src/index.js";
import { keys, vector } from "../support/vectors.js";
import { useGateway } from "./gateway.js";
import { makeClient } from "./helpers.js";

describe("gateway.notifications.verify and gateway.callbacks.decode use the client's keys and signing version", () => {
	test.each(["2.0", "2.1"] as const)("a transaction IPN and a callback in %s", (version) => {
		const gateway = makeClient({ signVersion: version });
		const ipn = gateway.notifications.verify(vector(`transaction-ipn-${version}`).message);
		expect(ipn.type).toBe("transaction");
		expect(ipn.type === "transaction" && ipn.transaction.status).toBe("successful");
		const callback = gateway.callbacks.decode(vector(`callback-${version}`).url as string);
		expect(callback).toMatchObject({ status: "successful", ref: "ORD-2026-0001", amount: 10.5 });
	});

	test("a refund IPN", () => {
		const event = makeClient().notifications.verify(vector("refund-ipn-2.0").message);
		expect(event.type === "refund" && event.refund.status).toBe("refund_successful");
	});

	test("an IPN or callback in the other signing version is refused", () => {
		const gateway = makeClient({ signVersion: "2.1" });
		expect(() => gateway.notifications.verify(vector("transaction-ipn-2.0").message)).toThrow(
			SignatureVerificationError,
		);
		expect(() => gateway.callbacks.decode(vector("callback-2.0").url as string)).toThrow(SignatureVerificationError);
	});

	test("a tampered IPN is refused", () => {
		const tampered = JSON.parse(vector("transaction-ipn-2.0").message as string);
		tampered.amount = 1;
		expect(() => makeClient().notifications.verify(tampered)).toThrow(SignatureVerificationError);
	});
});

describe("gateway.callbacks.resolve: signed callbacks by their signature, unsigned ones by a verified query", () => {
	const fixture = useGateway();
	/** A transaction the sandbox charged: what the unsigned callbacks name. */
	const ids = { transaction: "" };
	beforeAll(async () => {
		ids.transaction = await fixture.chargedTransaction();
	});

	const unsigned = (fields: Record<string, unknown>) => {
		const payload = Buffer.from(JSON.stringify(fields)).toString("base64");
		return `https://shop.example/pay/callback?payload=${encodeURIComponent(payload)}`;
	};

	test.each(["2.0", "2.1"] as const)(
		"a signed %s callback is verified by its signature, with no query",
		async (version) => {
			const queries = fixture.count();
			const resolved = await fixture
				.client({ signVersion: version })
				.callbacks.resolve(vector(`callback-${version}`).url as string);
			expect(resolved).toMatchObject({
				verifiedBy: "signature",
				status: "successful",
				ref: "ORD-2026-0001",
				amount: 10.5,
			});
			expect(fixture.count()).toBe(queries);
		},
	);

	test("an unsigned callback is never trusted by decode, which names the way out", () => {
		const url = unsigned({ status: "successful", transactionId: ids.transaction });
		expect(() => makeClient().callbacks.decode(url)).toThrow(/no signature.*callbacks\.resolve/s);
		expect(() => decodeCallback(url, { gatewayPublicKey: keys.gatewayPublic })).toThrow(SignatureVerificationError);
	});

	test("an unsigned callback is resolved by a verified transaction query: its own claims are ignored", async () => {
		const url = unsigned({ status: "successful", transactionId: ids.transaction, amount: 99999, ref: "forged" });
		const resolved = await fixture.client().callbacks.resolve(url);
		expect(resolved.verifiedBy).toBe("transaction_query");
		expect(fixture.received().at(-1)?.path).toBe("/v2/checkout/query");
		const charged = fixture.sandbox.transaction(ids.transaction);
		expect(resolved).toMatchObject({
			transactionId: ids.transaction,
			ref: charged?.ref,
			amount: 99.99,
			status: "successful",
		});
		expect(resolved.verifiedBy === "transaction_query" && resolved.transaction.transactionNumber).toBe(
			charged?.transactionNumber,
		);
	});

	test("a wrong signature is refused, never queried around; no transactionId to query is a typed error", async () => {
		const forged = JSON.parse(
			Buffer.from(new URL(vector("callback-2.0").url as string).searchParams.get("payload") ?? "", "base64").toString(),
		);
		forged.amount = 1;
		const queries = fixture.count();
		await expect(fixture.client().callbacks.resolve(unsigned(forged))).rejects.toThrow(SignatureVerificationError);
		await expect(fixture.client().callbacks.resolve(unsigned({ status: "successful" }))).rejects.toThrow(
			InvalidNotificationError,
		);
		expect(fixture.count()).toBe(queries);
	});
});
