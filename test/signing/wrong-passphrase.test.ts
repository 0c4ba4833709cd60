import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, test } from "vitest";
import { InvalidKeyError, loadPrivateKey } from "../../src/index.js";
import { useCryptoBackend } from "../../src/signing/index.js";
import { pemBody } from "./key-fixtures.js";

// Fixed encryptions of the vectors' merchant key (openssl pkcs8 -topk8 -v2 aes-256-cbc, and openssl rsa -aes256),
// passphrase "correct horse battery staple": a fixed salt and IV make each wrong passphrase's outcome reproducible.
const read = (name: string) => readFileSync(new URL(`./encrypted-keys/${name}`, import.meta.url), "utf8");
const encryptedPkcs8Pem = read("pkcs8-aes-256-cbc.pem");
const encryptedPkcs8Der = new Uint8Array(Buffer.from(pemBody(encryptedPkcs8Pem), "base64"));
const legacyPkcs1Pem = read("pkcs1-legacy-aes-256-cbc.pem");
const RIGHT = "correct horse battery staple";

/** Deterministic pseudo-random passphrases (mulberry32): printable ASCII and some non-ASCII, 1 to 40 characters. */
function passphrases(count: number, seed: number): string[] {
	let state = seed >>> 0;
	const next = () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const alphabet = [
		..." !#$%&()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_abcdefghijklmnopqrstuvwxyz{|}~éßø€中😀",
	];
	const out: string[] = [];
	while (out.length < count) {
		const length = 1 + Math.floor(next() * 40);
		let text = "";
		for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
		if (text !== RIGHT) out.push(text);
	}
	return out;
}

function reasonFor(load: () => unknown): string {
	try {
		load();
		return "loaded";
	} catch (error) {
		return error instanceof InvalidKeyError ? error.reason : `untyped: ${String(error)}`;
	}
}

const keysUnderTest = [
	["encrypted PKCS#8 PEM", encryptedPkcs8Pem],
	["encrypted PKCS#8 DER", encryptedPkcs8Der],
	["legacy encrypted PKCS#1 PEM", legacyPkcs1Pem],
] as const;

describe.each([
	["node", 800],
	["forge", 800],
] as const)("the %s backend: an encrypted key that does not decrypt means a wrong passphrase", (backend, count) => {
	beforeAll(() => useCryptoBackend(backend).then(() => useCryptoBackend("auto")));

	test.each(keysUnderTest)("%s: every one of many wrong passphrases is reported as wrong_passphrase", (_name, key) => {
		expect(loadPrivateKey(key, { passphrase: RIGHT, backend }).bits).toBe(2048);
		const misreported = new Map<string, string>();
		for (const passphrase of passphrases(count, 20_241_123)) {
			const reason = reasonFor(() => loadPrivateKey(key, { passphrase, backend }));
			if (reason !== "wrong_passphrase") misreported.set(JSON.stringify(passphrase), reason);
		}
		expect(Object.fromEntries(misreported)).toEqual({});
	});
});
