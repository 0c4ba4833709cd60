import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { loadPrivateKey, loadPublicKey, MalformedMessageError, SignatureVerificationError } from "../../src/index.js";
import {
	type CryptoBackendName,
	canonicalString,
	loadCryptoBackend,
	openMessage,
	sealMessage,
} from "../../src/signing/index.js";
import { naturalCompare } from "../../src/signing/php.js";
import { signText } from "../../src/signing/seal.js";
import { keys } from "../support/vectors.js";
import { jsonObject, message, reorder } from "./arbitraries.js";
import { trimmedDeep } from "./awkward.js";

// node:crypto signs in about 0.5 ms; node-forge in about 50 ms, so it gets fewer runs.
const runs: Record<CryptoBackendName, number> = { node: 100, forge: 8 };
const backends: CryptoBackendName[] = ["node", "forge"];

const OBJECT_PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));
const privateKey = loadPrivateKey(keys.merchantPrivate);
const publicKey = loadPublicKey(keys.merchantPublic);
const otherPublicKey = loadPublicKey(keys.gatewayPublic);

beforeAll(async () => {
	await loadCryptoBackend("forge");
});

/** Runs `fn` and returns what it threw; a typed SDK error is the only acceptable outcome. */
function thrown(fn: () => unknown): unknown {
	try {
		fn();
	} catch (error) {
		return error;
	}
	return undefined;
}

function expectTypedError(fn: () => unknown): SignatureVerificationError | MalformedMessageError {
	const error = thrown(fn);
	const typed = error instanceof SignatureVerificationError || error instanceof MalformedMessageError;
	expect(
		typed,
		`expected a typed error, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
	).toBe(true);
	return error as SignatureVerificationError | MalformedMessageError;
}

/** Every leaf of a JSON value, depth first. */
function leafValues(value: unknown): unknown[] {
	if (Array.isArray(value)) return value.flatMap(leafValues);
	if (typeof value === "object" && value !== null) return Object.values(value).flatMap(leafValues);
	return [value];
}

/** The non-integer-like keys of every nested object, depth first, in iteration order. */
function nestedKeyOrders(value: unknown, out: string[][] = [], depth = 0): string[][] {
	if (Array.isArray(value)) for (const item of value) nestedKeyOrders(item, out, depth + 1);
	else if (typeof value === "object" && value !== null) {
		const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
		if (depth > 0 && keys.some((key) => !/^(0|[1-9][0-9]*)$/.test(key)))
			out.push(keys.filter((key) => !/^(0|[1-9][0-9]*)$/.test(key)));
		for (const key of [...keys].sort()) nestedKeyOrders((value as Record<string, unknown>)[key], out, depth + 1);
	}
	return out;
}

/** The same object with its top-level keys inserted in another order. */
function reorderTop(fields: Record<string, unknown>, shift: number): Record<string, unknown> {
	const keys = Object.keys(fields).reverse();
	const turn = keys.length === 0 ? 0 : shift % keys.length;
	const entries = [...keys.slice(turn), ...keys.slice(0, turn)].map((key) => [key, fields[key]] as const);
	return Object.fromEntries(entries);
}

/** What a receiver of `fields` as JSON text sees: -0 is 0, undefined is gone. */
const overTheWire = (fields: unknown) => JSON.stringify(fields);
const withoutSignature = ({ signature: _s, ...rest }: Record<string, unknown>) => rest;

describe("canonical form", () => {
	it("does not depend on the order of top-level keys (no two of which tie in natural order)", () => {
		fc.assert(
			fc.property(jsonObject, fc.nat(), (fields, shift) => {
				const keys = Object.keys(fields);
				fc.pre(keys.every((a, i) => keys.every((b, j) => i === j || naturalCompare(a, b) !== 0)));
				expect(canonicalString(reorderTop(fields, shift))).toBe(canonicalString(fields));
			}),
			{ numRuns: 300 },
		);
	});

	it("depends on nested order: a nested object is written in its own order", () => {
		fc.assert(
			fc.property(jsonObject, fc.nat(), (fields, shift) => {
				const reordered = reorder(fields, shift) as Record<string, unknown>;
				const parsedBack = (text: string) => nestedKeyOrders(JSON.parse(text));
				expect(parsedBack(canonicalString(reordered))).toEqual(nestedKeyOrders(reordered));
			}),
			{ numRuns: 200 },
		);
	});

	it("is ASCII JSON whose every leaf is a string", () => {
		fc.assert(
			fc.property(jsonObject, (fields) => {
				const text = canonicalString(fields);
				expect(text).toMatch(/^[\x20-\x7f]*$/);
				for (const leaf of leafValues(JSON.parse(text))) expect(typeof leaf).toBe("string");
			}),
			{ numRuns: 200 },
		);
	});
});

describe.each(backends)("%s backend", (backend) => {
	it("2.0: seal then open returns the fields as signed (trimmed), for any JSON object", () => {
		fc.assert(
			fc.property(message, (fields) => {
				const sealed = sealMessage(fields, { privateKey, backend });
				// What was signed comes back: the fields with every string trimmed as the reference form trims it.
				const expected = overTheWire(trimmedDeep(JSON.parse(overTheWire(withoutSignature(fields)))));
				expect(overTheWire(openMessage(sealed, { publicKey, backend }))).toBe(expected);
				// Through the wire too: the receiver verifies the JSON text in its own order.
				expect(overTheWire(openMessage(JSON.stringify(sealed), { publicKey, backend }))).toBe(expected);
			}),
			{ numRuns: runs[backend] },
		);
	});

	it("2.1: seal then open returns the fields as sent, for any JSON object", () => {
		fc.assert(
			fc.property(jsonObject, (fields) => {
				const sealed = sealMessage(fields, { privateKey, signVersion: "2.1", backend });
				const expected = overTheWire(
					withoutSignature(Object.fromEntries(Object.entries(fields).filter(([key]) => key !== "signVersion"))),
				);
				expect(sealed.payload).toBe(expected);
				expect(overTheWire(openMessage(sealed, { publicKey, backend }))).toBe(expected);
				expect(overTheWire(openMessage(JSON.stringify(sealed), { publicKey, backend }))).toBe(expected);
			}),
			{ numRuns: runs[backend] },
		);
	});

	it("flipping any bit pattern in any byte of a signature fails verification (both versions)", () => {
		fc.assert(
			fc.property(
				message,
				fc.constantFrom("2.0" as const, "2.1" as const),
				fc.nat(),
				fc.integer({ min: 1, max: 255 }),
				(fields, signVersion, at, mask) => {
					const sealed = sealMessage(fields, { privateKey, signVersion, backend });
					const bytes = Buffer.from(sealed.signature, "base64");
					const index = at % bytes.length;
					bytes[index] = (bytes[index] ?? 0) ^ mask;
					const error = expectTypedError(() =>
						openMessage({ ...sealed, signature: bytes.toString("base64") }, { publicKey, backend }),
					);
					expect(error).toBeInstanceOf(SignatureVerificationError);
					expect((error as SignatureVerificationError).reason).toBe("mismatch");
				},
			),
			{ numRuns: runs[backend] },
		);
	});

	it("2.1: changing any byte of the payload fails verification before anything is parsed", () => {
		fc.assert(
			fc.property(message, fc.nat(), fc.integer({ min: 1, max: 255 }), (fields, at, mask) => {
				const sealed = sealMessage(fields, { privateKey, signVersion: "2.1", backend });
				const bytes = new TextEncoder().encode(sealed.payload);
				const index = at % bytes.length;
				bytes[index] = (bytes[index] ?? 0) ^ mask;
				const payload = new TextDecoder().decode(bytes);
				fc.pre(payload !== sealed.payload);
				const error = expectTypedError(() => openMessage({ ...sealed, payload }, { publicKey, backend }));
				expect(error).toBeInstanceOf(SignatureVerificationError);
			}),
			{ numRuns: runs[backend] },
		);
	});

	it("2.0: any change that alters the canonical string fails verification", () => {
		fc.assert(
			fc.property(message, message, (fields, changes) => {
				const changed = { ...fields, ...changes };
				fc.pre(canonicalString(changed) !== canonicalString(fields));
				const sealed = sealMessage(fields, { privateKey, backend });
				const error = expectTypedError(() =>
					openMessage({ ...changed, signature: sealed.signature }, { publicKey, backend }),
				);
				expect(error).toBeInstanceOf(SignatureVerificationError);
			}),
			{ numRuns: runs[backend] },
		);
	});

	it("the other party's key never verifies", () => {
		fc.assert(
			fc.property(message, fc.constantFrom("2.0" as const, "2.1" as const), (fields, signVersion) => {
				const sealed = sealMessage(fields, { privateKey, signVersion, backend });
				expect(expectTypedError(() => openMessage(sealed, { publicKey: otherPublicKey, backend }))).toBeInstanceOf(
					SignatureVerificationError,
				);
				expect(openMessage(sealed, { publicKey: [otherPublicKey, publicKey], backend })).toBeTypeOf("object");
			}),
			{ numRuns: Math.min(runs[backend], 20) },
		);
	});
});

describe("malformed input gives a typed error, never a crash", () => {
	const sealed20 = sealMessage({ orderRef: "A-1", amount: 10 }, { privateKey });
	const sealed21 = sealMessage({ orderRef: "A-1", amount: 10 }, { privateKey, signVersion: "2.1" });

	it("any value as the signature, in both versions", () => {
		const badSignature = fc.oneof(
			fc.string({ maxLength: 400 }),
			fc.base64String({ maxLength: 400 }),
			fc.constantFrom(
				"",
				"====",
				"abc",
				"a===",
				"!!!!",
				"AAAA".repeat(86),
				sealed20.signature.slice(1),
				`${sealed20.signature}AAAA`,
			),
			fc.anything(),
		);
		fc.assert(
			fc.property(badSignature, (signature) => {
				fc.pre(signature !== sealed20.signature && signature !== sealed21.signature);
				expect(expectTypedError(() => openMessage({ ...sealed20, signature }, { publicKey }))).toBeInstanceOf(
					SignatureVerificationError,
				);
				expect(expectTypedError(() => openMessage({ ...sealed21, signature }, { publicKey }))).toBeInstanceOf(
					SignatureVerificationError,
				);
			}),
			{ numRuns: 300 },
		);
	});

	it("a validly signed 2.1 payload that is not a JSON object text is MalformedMessageError", () => {
		const notObjectText = fc.oneof(
			fc.string({ maxLength: 40 }),
			fc
				.jsonValue({ maxDepth: 2 })
				.filter((value) => typeof value !== "object" || value === null || Array.isArray(value))
				.map((value) => JSON.stringify(value)),
			fc.constantFrom("[]", "[1,2]", "null", "42", '"text"', "{", "{'a':1}", '{"a":1}x', "\u0000"),
		);
		fc.assert(
			fc.property(notObjectText, (payload) => {
				let isObject = false;
				try {
					const parsed = JSON.parse(payload);
					isObject = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
				} catch {
					// not JSON at all: exactly what we want
				}
				fc.pre(!isObject);
				const signature = sealMessage({ x: 1 }, { privateKey, signVersion: "2.1" }).signature;
				// Signed properly over this payload, so the only fault left is its content.
				const signed = { payload, signVersion: "2.1", signature: signText(payload, privateKey) };
				const error = expectTypedError(() => openMessage(signed, { publicKey }));
				expect(error).toBeInstanceOf(MalformedMessageError);
				expect((error as MalformedMessageError).field).toBe("payload");
				// An unsigned one is refused for its signature first: nothing is parsed before verification.
				expect(expectTypedError(() => openMessage({ ...signed, signature }, { publicKey }))).toBeInstanceOf(
					SignatureVerificationError,
				);
			}),
			{ numRuns: 150 },
		);
	});

	it("wrong types for payload and signVersion", () => {
		fc.assert(
			fc.property(
				fc.anything().filter((value) => typeof value !== "string" && value !== undefined),
				(value) => {
					expect(expectTypedError(() => openMessage({ ...sealed21, payload: value }, { publicKey }))).toBeInstanceOf(
						MalformedMessageError,
					);
					const error = expectTypedError(() => openMessage({ ...sealed21, signVersion: value }, { publicKey }));
					expect(error).toBeInstanceOf(MalformedMessageError);
					expect((error as MalformedMessageError).field).toBe("signVersion");
				},
			),
			{ numRuns: 200 },
		);
	});

	it("anything that is not a message: values, JSON texts, random bytes", () => {
		const notAMessage = fc.oneof(
			fc.anything({
				withNullPrototype: true,
				withMap: true,
				withSet: true,
				withTypedArray: true,
				withDate: true,
				withSparseArray: true,
				withBigInt: true,
			}),
			fc.json(),
			fc.string(),
			fc.uint8Array({ maxLength: 64 }),
			fc.constantFrom(
				null,
				undefined,
				"",
				"[]",
				"{}",
				"null",
				'{"payload":1}',
				'{"data":{}}',
				'{"data":[],"signature":null}',
				new Uint8Array([0xff, 0xfe]),
			),
		);
		fc.assert(
			fc.property(notAMessage, (input) => {
				expectTypedError(() => openMessage(input, { publicKey }));
				expectTypedError(() => openMessage(input, { publicKey, acceptVersions: ["2.1"] }));
			}),
			{ numRuns: 400 },
		);
	});

	it("nesting beyond the depth limit is refused, when sealing and when opening", () => {
		const nest = (depth: number) => {
			let value: Record<string, unknown> = { leaf: "x" };
			for (let i = 0; i < depth; i++) value = { a: value };
			return value;
		};
		// 63 levels below the top are fine; 64 and beyond are refused with the path.
		expect(() => sealMessage(nest(63), { privateKey })).not.toThrow();
		const deepError = thrown(() => sealMessage(nest(64), { privateKey }));
		expect(deepError).toBeInstanceOf(MalformedMessageError);
		expect((deepError as MalformedMessageError).message).toMatch(/nesting deeper than 64/);
		expect((deepError as MalformedMessageError).field).toMatch(/^a(\.a)+$/);
		for (const depth of [65, 1000, 100_000]) {
			const text = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
			const body = `${text.slice(0, -1)},"signature":"${sealed20.signature}"}`;
			expect(expectTypedError(() => openMessage(body, { publicKey }))).toBeInstanceOf(MalformedMessageError);
		}
	});

	it("__proto__ and constructor keys stay data: no prototype pollution, and they are signed", () => {
		const text = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"orderRef":"P-1"}';
		const fields = JSON.parse(text) as Record<string, unknown>;
		for (const signVersion of ["2.0", "2.1"] as const) {
			const sealed = sealMessage(fields, { privateKey, signVersion });
			const opened = openMessage(JSON.stringify(sealed), { publicKey });
			expect(Object.getPrototypeOf(opened)).toBe(Object.prototype);
			expect(Object.hasOwn(opened, "__proto__")).toBe(true);
			expect(JSON.stringify(opened)).toBe(text);
			expect(({} as Record<string, unknown>).polluted).toBeUndefined();
			expect((Object.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
		}
		// Changing the __proto__ member's content is caught: it is part of the signed string.
		const sealed = sealMessage(fields, { privateKey });
		const forged = JSON.stringify(sealed).replace('"polluted":"yes"', '"polluted":"no"');
		expect(expectTypedError(() => openMessage(forged, { publicKey }))).toBeInstanceOf(SignatureVerificationError);
		expect(canonicalString(fields)).toBe(
			'{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"orderRef":"P-1"}',
		);
	});

	it("a 2.0 message with a string payload field is refused when sealing (it would read as a 2.1 envelope)", () => {
		const error = thrown(() => sealMessage({ orderRef: "A-1", payload: "text" }, { privateKey }));
		expect(error).toBeInstanceOf(MalformedMessageError);
		expect((error as MalformedMessageError).field).toBe("payload");
		// Under 2.1 the same fields travel inside the payload text and open as sent.
		const sealed = sealMessage({ orderRef: "A-1", payload: "text" }, { privateKey, signVersion: "2.1" });
		expect(openMessage(sealed, { publicKey })).toEqual({ orderRef: "A-1", payload: "text" });
	});

	it("after every run above, Object.prototype is untouched", () => {
		expect(Object.getOwnPropertyNames(Object.prototype).filter((name) => !OBJECT_PROTOTYPE_NAMES.has(name))).toEqual(
			[],
		);
	});
});
