import { describe, expect, it } from "vitest";
import { decodeCallback, type SignVersion, verifyNotification } from "../../src/index.js";
import { openCallbackUrl } from "../../src/signing/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { gatewayPublicKey, refundFields, signedBody, transactionFields } from "./fixtures.js";

/**
 * A member named `__proto__` is data like any other: what was signed is handed out, as an own data
 * property, and no prototype changes (neither the objects' nor Object.prototype).
 */
const metadataText = '{"__proto__":{"gift":true,"note":" wrapped "},"cartId":42}';
const versions: SignVersion[] = ["2.0", "2.1"];

/** The signed metadata, as the verifier must hand it out: own members in order, strings as signed. */
function expectSignedMetadata(metadata: unknown, version: SignVersion): void {
	const record = metadata as Record<string, unknown>;
	expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
	expect(Object.keys(record)).toEqual(["__proto__", "cartId"]);
	const member = Object.getOwnPropertyDescriptor(record, "__proto__");
	expect(member).toMatchObject({ enumerable: true, writable: true });
	// 2.0 signs strings trimmed and hands them out so; 2.1 signs the payload text as it is.
	expect(member?.value).toEqual({ gift: true, note: version === "2.0" ? "wrapped" : " wrapped " });
	expect(Object.getPrototypeOf(member?.value)).toBe(Object.prototype);
	expect(record.cartId).toBe(42);
	expect(({} as Record<string, unknown>).gift).toBeUndefined();
}

describe("a __proto__ member in signed metadata", () => {
	for (const version of versions) {
		it(`verifyNotification hands it out, transaction and refund (${version}, raw text)`, () => {
			const transaction = signedBody({ ...transactionFields(), metadata: JSON.parse(metadataText) }, version);
			const event = verifyNotification(transaction, { gatewayPublicKey });
			if (event.type !== "transaction") throw new Error("expected a transaction");
			expectSignedMetadata(event.transaction.metadata, version);
			const refund = signedBody({ ...refundFields(), metadata: JSON.parse(metadataText) }, version);
			const refunded = verifyNotification(refund, { gatewayPublicKey });
			if (refunded.type !== "refund") throw new Error("expected a refund");
			expectSignedMetadata(refunded.refund.metadata, version);
		});

		it(`verifyNotification hands it out from a body a framework parsed (${version})`, () => {
			const body = JSON.parse(signedBody({ ...transactionFields(), metadata: JSON.parse(metadataText) }, version));
			const event = verifyNotification(body, { gatewayPublicKey });
			if (event.type !== "transaction") throw new Error("expected a transaction");
			expectSignedMetadata(event.transaction.metadata, version);
		});

		it(`a callback: openCallbackUrl hands out the member, decodeCallback its documented fields (${version})`, () => {
			const fields = JSON.parse(
				`{"status":"successful","transactionId":"01JD5Z8Q4V7M1X2C3B4N5P6R7S","__proto__":{"ref":"x"},"amount":10.5}`,
			);
			const url = sealCallbackUrl("https://shop.example/return", fields, {
				privateKey: keys.gatewayPrivate,
				signVersion: version,
			});
			const opened = openCallbackUrl(url, { publicKey: gatewayPublicKey }).fields;
			expect(Object.getPrototypeOf(opened)).toBe(Object.prototype);
			expect(Object.getOwnPropertyDescriptor(opened, "__proto__")?.value).toEqual({ ref: "x" });
			const result = decodeCallback(url, { gatewayPublicKey });
			expect(result).toEqual({ status: "successful", transactionId: "01JD5Z8Q4V7M1X2C3B4N5P6R7S", amount: 10.5 });
			expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
			expect(result.ref).toBeUndefined();
		});
	}
});
