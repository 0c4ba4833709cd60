import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignatureVerificationError } from "../../src/index.js";
import {
	type CryptoBackendName,
	canonicalString,
	loadCryptoBackend,
	openMessage,
	sealMessage,
} from "../../src/signing/index.js";
import { keyPath, keys, vectors } from "../support/vectors.js";
import { awkward, trimmedDeep } from "./awkward.js";
import { openssl } from "./key-fixtures.js";

const backends: CryptoBackendName[] = ["node", "forge"];
const privatePem = keyPath("merchant-private");
const publicPem = keyPath("merchant-public");
let dir: string;
let counter = 0;

beforeAll(async () => {
	await loadCryptoBackend("forge");
	dir = mkdtempSync(join(tmpdir(), "mg-openssl-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tempFile(content: string | Uint8Array): string {
	const path = join(dir, `f${++counter}`);
	writeFileSync(path, content);
	return path;
}

/** `openssl dgst -md5 -verify`: true only when openssl prints "Verified OK". */
function opensslVerifies(data: string, signatureBase64: string): boolean {
	const result = spawnSync("openssl", [
		"dgst",
		"-md5",
		"-verify",
		publicPem,
		"-signature",
		tempFile(Buffer.from(signatureBase64, "base64")),
		tempFile(data),
	]);
	return result.status === 0 && result.stdout.toString().trim() === "Verified OK";
}

/** `openssl dgst -md5 -sign` over the UTF-8 bytes of `data`; returns standard base64. */
function opensslSign(data: string): string {
	return openssl(["dgst", "-md5", "-sign", privatePem, tempFile(data)]).toString("base64");
}

describe.each(backends)("%s backend with the openssl CLI", (backend) => {
	it("every 2.0 vector: our signature over the canonical string verifies with openssl dgst -md5 -verify", () => {
		const merchantVectors = vectors.filter((v) => v.kind === "sign20" && v.signer === "merchant");
		expect(merchantVectors.length).toBeGreaterThan(0);
		for (const v of merchantVectors) {
			const sealed = sealMessage(v.input, { privateKey: keys.merchantPrivate, backend });
			expect(opensslVerifies(canonicalString(v.input), sealed.signature), v.name).toBe(true);
		}
	});

	it("a fresh awkward message: our 2.0 signature verifies with openssl, and openssl's signature equals ours", () => {
		const sealed = sealMessage(awkward, { privateKey: keys.merchantPrivate, backend });
		const canonical = canonicalString(awkward);
		expect(opensslVerifies(canonical, sealed.signature)).toBe(true);
		expect(opensslSign(canonical)).toBe(sealed.signature);
	});

	it("our 2.1 signature verifies with openssl over the payload bytes exactly", () => {
		const sealed = sealMessage(awkward, { privateKey: keys.merchantPrivate, signVersion: "2.1", backend });
		expect(opensslVerifies(sealed.payload, sealed.signature)).toBe(true);
	});

	it("openssl refuses our signature over other data (the check can fail)", () => {
		const sealed = sealMessage(awkward, { privateKey: keys.merchantPrivate, backend });
		expect(opensslVerifies(`${canonicalString(awkward)} `, sealed.signature)).toBe(false);
	});

	it("a 2.1 message whose payload openssl signed opens with openMessage (raw text and parsed)", () => {
		// A payload as another implementation might write it: spaces, unsorted keys, escaped and raw unicode.
		const payload =
			'{ "orderRef": "ORD-1", "amount": 10.50, "note": "caf\\u00e9 / café", "items": [ {"b": 1, "a": 2} ] }';
		const message = { payload, signVersion: "2.1", signature: opensslSign(payload) };
		const expected = JSON.parse(payload);
		expect(openMessage(message, { publicKey: keys.merchantPublic, backend })).toEqual(expected);
		expect(openMessage(JSON.stringify(message), { publicKey: keys.merchantPublic, backend })).toEqual(expected);
		expect(
			openMessage(new TextEncoder().encode(JSON.stringify(message)), { publicKey: keys.merchantPublic, backend }),
		).toEqual(expected);
		expect(() =>
			openMessage(
				{ ...message, payload: payload.replace("10.50", "10.51") },
				{ publicKey: keys.merchantPublic, backend },
			),
		).toThrow(SignatureVerificationError);
	});

	it("a 2.0 message whose canonical string openssl signed opens with openMessage (flat and wrapped)", () => {
		const signature = opensslSign(canonicalString(awkward));
		const flat = { ...awkward, signature };
		// What was signed comes back: every string trimmed as the reference form trims it.
		const opened = trimmedDeep(awkward);
		expect(openMessage(flat, { publicKey: keys.merchantPublic, backend })).toEqual(opened);
		expect(openMessage(JSON.stringify(flat), { publicKey: keys.merchantPublic, backend })).toEqual(opened);
		const wrapped = { status: "success", message: "ok", data: flat };
		expect(openMessage(wrapped, { publicKey: keys.merchantPublic, backend })).toEqual(opened);
		expect(() =>
			openMessage({ ...flat, orderRef: "ORD/2026\\0002" }, { publicKey: keys.merchantPublic, backend }),
		).toThrow(SignatureVerificationError);
	});
});

describe("the vector keys are what openssl reads", () => {
	it("openssl derives the same public key from the private key", () => {
		expect(openssl(["pkey", "-in", privatePem, "-pubout"]).toString()).toBe(readFileSync(publicPem, "utf8"));
	});
});
