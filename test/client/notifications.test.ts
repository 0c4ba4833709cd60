import { describe, expect, test } from "vitest";
import { SignatureVerificationError } from "../../src/errors/index.js";
import { vector } from "../helpers/vectors.js";
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
		expect(() => gateway.notifications.verify(vector("transaction-ipn-2.0").message)).toThrow(SignatureVerificationError);
		expect(() => gateway.callbacks.decode(vector("callback-2.0").url as string)).toThrow(SignatureVerificationError);
	});

	test("a tampered IPN is refused", () => {
		const tampered = JSON.parse(vector("transaction-ipn-2.0").message as string);
		tampered.amount = 1;
		expect(() => makeClient().notifications.verify(tampered)).toThrow(SignatureVerificationError);
	});
});
