import { describe, expect, it } from "vitest";
import { InvalidNotificationError, SignatureVerificationError, verifyNotification } from "../../src/index.js";
import { sealMessage } from "../../src/signing/index.js";
import { keys, vector } from "../support/vectors.js";
import { gatewayPublicKey, merchantPrivateKey, refundFields, signedBody, transactionFields } from "./fixtures.js";

const options = { gatewayPublicKey };

/** Every leaf of an object, as a path and its value. */
function leaves(value: unknown, path: string[] = []): Array<[string[], unknown]> {
	if (typeof value === "object" && value !== null && !(Array.isArray(value) && value.length === 0)) {
		return Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]));
	}
	return [[path, value]];
}

function changed(value: unknown): unknown {
	if (typeof value === "string") return `${value}x`;
	if (typeof value === "number") return value + 1;
	if (typeof value === "boolean") return !value;
	if (value === null) return "x";
	return ["x"];
}

function withLeaf(object: Record<string, unknown>, path: string[], next: unknown): Record<string, unknown> {
	const copy = structuredClone(object);
	let at: Record<string, unknown> = copy;
	for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
	at[path.at(-1) as string] = next;
	return copy;
}

function rejection(body: unknown): unknown {
	try {
		verifyNotification(body, options);
	} catch (error) {
		return error;
	}
	return undefined;
}

describe("verifyNotification: the known-answer vectors", () => {
	it("verifies the 2.0 transaction IPN vector as text, bytes and a parsed object", () => {
		const v = vector("transaction-ipn-2.0");
		const text = v.message as string;
		for (const body of [text, new TextEncoder().encode(text), JSON.parse(text)]) {
			const event = verifyNotification(body, options);
			expect(event.type).toBe("transaction");
			if (event.type !== "transaction") return;
			expect(event.signVersion).toBe("2.0");
			expect(event.eventId).toBe("transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful");
			expect(event.transaction).toEqual(v.opened);
		}
	});

	it("verifies the 2.1 transaction IPN vector as text, bytes and a parsed object", () => {
		const v = vector("transaction-ipn-2.1");
		const text = v.message as string;
		for (const body of [text, new TextEncoder().encode(text), JSON.parse(text)]) {
			const event = verifyNotification(body, options);
			expect(event).toEqual({
				type: "transaction",
				transaction: v.opened,
				eventId: "transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful",
				signVersion: "2.1",
			});
		}
	});

	it("verifies the 2.0 refund IPN vector and tells it apart by refundId", () => {
		const v = vector("refund-ipn-2.0");
		const event = verifyNotification(v.message, options);
		expect(event).toEqual({
			type: "refund",
			refund: v.opened,
			eventId: "refund:01kafr0b2c4d6e8f0g2h4j6k8m:refund_successful",
			signVersion: "2.0",
		});
	});

	it("verifies a fresh 2.1 refund IPN", () => {
		const event = verifyNotification(signedBody(refundFields(), "2.1"), options);
		expect(event.type).toBe("refund");
		expect(event.signVersion).toBe("2.1");
	});

	it("accepts any of several keys (rotation) and refuses with only the wrong one", () => {
		const text = vector("transaction-ipn-2.0").message as string;
		expect(verifyNotification(text, { gatewayPublicKey: [keys.merchantPublic, gatewayPublicKey] }).type).toBe(
			"transaction",
		);
		expect(() => verifyNotification(text, { gatewayPublicKey: keys.merchantPublic })).toThrow(
			SignatureVerificationError,
		);
	});

	it("a status change is a new event, a re-delivery is the same event", () => {
		const a = verifyNotification(signedBody({ ...transactionFields(), status: "pending", statusCode: 2 }), options);
		const b = verifyNotification(signedBody(transactionFields(), "2.1"), options);
		const c = verifyNotification(signedBody(transactionFields()), options);
		expect(a.eventId).not.toBe(b.eventId);
		expect(b.eventId).toBe(c.eventId);
	});

	it("keeps an unknown status (D8)", () => {
		const event = verifyNotification(
			signedBody({ ...transactionFields(), status: "chargeback_lost", statusCode: 99 }),
			options,
		);
		expect(event.type === "transaction" && event.transaction.status).toBe("chargeback_lost");
	});
});

describe("verifyNotification: forgery", () => {
	for (const [name, fields] of [
		["transaction", transactionFields()],
		["refund", refundFields()],
	] as const) {
		const flat = JSON.parse(signedBody(fields)) as Record<string, unknown>;
		const sealed21 = JSON.parse(signedBody(fields, "2.1")) as { payload: string; signature: string };
		const payload = JSON.parse(sealed21.payload) as Record<string, unknown>;

		it(`2.0 ${name}: changing any single field is refused`, () => {
			const all = leaves(fields);
			expect(all.length).toBeGreaterThan(10);
			for (const [path, value] of all) {
				const forged = withLeaf(flat, path, changed(value));
				expect(rejection(forged), path.join(".")).toBeInstanceOf(SignatureVerificationError);
			}
		});

		it(`2.1 ${name}: changing any single field of the payload is refused`, () => {
			for (const [path, value] of leaves(payload)) {
				const forged = { ...sealed21, payload: JSON.stringify(withLeaf(payload, path, changed(value))) };
				expect(rejection(forged), path.join(".")).toBeInstanceOf(SignatureVerificationError);
			}
		});

		it(`${name}: removing a field or adding one is refused (2.0 and 2.1)`, () => {
			for (const key of Object.keys(fields)) {
				const { [key]: _removed, ...rest } = flat;
				expect(rejection(rest), key).toBeInstanceOf(SignatureVerificationError);
				const { [key]: _gone, ...restPayload } = payload;
				expect(rejection({ ...sealed21, payload: JSON.stringify(restPayload) }), key).toBeInstanceOf(
					SignatureVerificationError,
				);
			}
			expect(rejection({ ...flat, extra: "x" })).toBeInstanceOf(SignatureVerificationError);
			expect(rejection({ ...sealed21, payload: JSON.stringify({ ...payload, extra: "x" }) })).toBeInstanceOf(
				SignatureVerificationError,
			);
		});

		it(`${name}: no signature, a signature by another key, or a changed signature is refused`, () => {
			const { signature: _s, ...unsigned } = flat;
			expect(rejection(unsigned)).toMatchObject({ reason: "missing_signature" });
			expect(rejection({ payload: sealed21.payload, signVersion: "2.1" })).toMatchObject({
				reason: "missing_signature",
			});
			expect(rejection(signedBody(fields, "2.0", merchantPrivateKey))).toMatchObject({ reason: "mismatch" });
			expect(rejection(signedBody(fields, "2.1", merchantPrivateKey))).toMatchObject({ reason: "mismatch" });
			const sig = flat.signature as string;
			const flipped = `${sig.slice(0, 10)}${sig[10] === "A" ? "B" : "A"}${sig.slice(11)}`;
			expect(rejection({ ...flat, signature: flipped })).toMatchObject({ reason: "mismatch" });
		});

		it(`${name}: a 2.0 body replayed as 2.1, and the reverse, is refused`, () => {
			const { signature, ...rest } = flat;
			expect(rejection({ payload: JSON.stringify(rest), signVersion: "2.1", signature })).toBeInstanceOf(
				SignatureVerificationError,
			);
			expect(rejection({ ...payload, signature: sealed21.signature })).toBeInstanceOf(SignatureVerificationError);
			expect(rejection({ ...payload, signVersion: "2.1", signature: sealed21.signature })).toBeInstanceOf(
				SignatureVerificationError,
			);
		});
	}

	it("a pinned version refuses the other one", () => {
		const body20 = signedBody(transactionFields());
		const body21 = signedBody(transactionFields(), "2.1");
		expect(() => verifyNotification(body20, { gatewayPublicKey, acceptVersions: ["2.1"] })).toThrow(
			expect.objectContaining({ reason: "version_not_accepted" }),
		);
		expect(() => verifyNotification(body21, { gatewayPublicKey, acceptVersions: ["2.0"] })).toThrow(
			expect.objectContaining({ reason: "version_not_accepted" }),
		);
		expect(verifyNotification(body21, { gatewayPublicKey, acceptVersions: ["2.1"] }).signVersion).toBe("2.1");
	});

	it("a 2.0 type swap that keeps the canonical form (10.5 -> '10.5') is caught by the schema", () => {
		const flat = JSON.parse(signedBody(transactionFields())) as Record<string, unknown>;
		const error = rejection({ ...flat, amount: "10.5" });
		expect(error).toBeInstanceOf(InvalidNotificationError);
		expect(error).toMatchObject({ field: "amount" });
	});

	it("a signed wrapped API response is not an IPN", () => {
		const error = rejection(vector("refund-query-response-2.0").message);
		expect(error).toBeInstanceOf(InvalidNotificationError);
	});
});

describe("verifyNotification: hostile and malformed input", () => {
	const valid = signedBody(transactionFields());

	it("refuses truncated JSON, empty bodies, non-objects and invalid UTF-8 as InvalidNotificationError", () => {
		for (const body of [
			valid.slice(0, -1),
			valid.slice(0, 40),
			"",
			"   ",
			"[]",
			"null",
			"42",
			'"text"',
			new Uint8Array([0x7b, 0xff, 0x7d]),
			42,
			null,
			undefined,
			[1],
		]) {
			expect(rejection(body)).toBeInstanceOf(InvalidNotificationError);
		}
	});

	it("refuses deeply nested JSON without overflowing the stack", () => {
		const deep = `{"metadata":${"[".repeat(5000)}${"]".repeat(5000)},"signature":"AAAA"}`;
		expect(rejection(deep)).toBeInstanceOf(Error);
		const nestedFields = { ...transactionFields(), metadata: JSON.parse(`${'{"a":'.repeat(80)}1${"}".repeat(80)}`) };
		const error = rejection(`{${JSON.stringify(nestedFields).slice(1, -1)},"signature":"AAAA"}`);
		expect(error).toBeInstanceOf(InvalidNotificationError);
		expect((error as Error).message).toMatch(/deeper than/);
	});

	it("refuses a non-string signature or payload", () => {
		const flat = JSON.parse(valid) as Record<string, unknown>;
		for (const signature of [42, true, ["a"], { a: 1 }]) {
			expect(rejection({ ...flat, signature })).toMatchObject({ reason: "malformed_signature" });
		}
		expect(rejection({ ...flat, signature: "not base64!" })).toMatchObject({ reason: "malformed_signature" });
		expect(rejection({ payload: 42, signVersion: "2.1", signature: "AAAA" })).toBeInstanceOf(InvalidNotificationError);
		expect(rejection({ payload: "{}", signVersion: "9.9", signature: "AAAA" })).toBeInstanceOf(
			InvalidNotificationError,
		);
	});

	it("__proto__ and constructor keys never pollute prototypes", () => {
		const fields = {
			...transactionFields(),
			metadata: JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}'),
		};
		for (const version of ["2.0", "2.1"] as const) {
			const sealed = sealMessage(fields, { privateKey: keys.gatewayPrivate, signVersion: version });
			const text = JSON.stringify(sealed).replace('"metadata":{', '"__proto__":{"polluted":3},"metadata":{');
			// 2.0 signs every top-level key, so an added "__proto__" breaks the signature; 2.1 ignores envelope extras.
			if (version === "2.0") expect(rejection(text)).toBeInstanceOf(SignatureVerificationError);
			const event = verifyNotification(version === "2.0" ? JSON.stringify(sealed) : text, options);
			expect(({} as Record<string, unknown>).polluted).toBeUndefined();
			expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
			if (event.type !== "transaction") throw new Error("expected a transaction");
			expect(Object.getPrototypeOf(event.transaction)).toBe(Object.prototype);
			expect(Reflect.get(event.transaction, "polluted")).toBeUndefined();
			expect((event.transaction.metadata as Record<string, unknown>).polluted).toBeUndefined();
		}
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("a signed body of the wrong shape names the field and rule, never the value", () => {
		const secretish = "4111111111111111";
		const error = rejection(signedBody({ ...transactionFields(), statusCode: secretish, currency: 978 }));
		expect(error).toBeInstanceOf(InvalidNotificationError);
		const message = (error as Error).message;
		expect(message).toMatch(/statusCode/);
		expect(message).toMatch(/currency/);
		expect(message).not.toContain(secretish);
		expect(message).not.toContain("978");
		expect(error).toMatchObject({ field: "currency" });
		const missing = rejection(signedBody({ ...refundFields(), refundCreatedAt: undefined }, "2.1"));
		expect(missing).toMatchObject({ field: "refundCreatedAt" });
	});

	it("says each rule as the SDK's request errors do: is required, must be a number", () => {
		const fields = {
			...transactionFields(),
			amount: "10.50",
			status: "",
			fees: { buyer: true },
			transactionDocuments: [{ type: "invoice" }],
		};
		const error = rejection(signedBody(fields, "2.1"));
		expect(error).toBeInstanceOf(InvalidNotificationError);
		expect((error as Error).message).toBe(
			"The transaction IPN is not of the documented shape: amount: must be a number; " +
				"fees.buyer: must be a number; status: must have at least 1 character; " +
				"transactionDocuments[0].url: is required.",
		);
	});
});
