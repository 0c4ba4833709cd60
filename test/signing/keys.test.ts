import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	InvalidKeyError,
	type InvalidKeyReason,
	type KeyInput,
	loadPrivateKey,
	loadPublicKey,
} from "../../src/index.js";
import {
	type CryptoBackendName,
	generateKeyPair,
	loadCryptoBackend,
	openMessage,
	sealMessage,
} from "../../src/signing/index.js";
import { findPemBlock, MAX_KEY_TEXT_LENGTH } from "../../src/signing/key-text.js";
import { PrivateKey, PublicKey, publicKeyText, toPrivateKey, toPublicKeys } from "../../src/signing/keys.js";
import { vector } from "../support/vectors.js";
import { type KeyFixtures, makeKeyFixtures, openssl, pemBody } from "./key-fixtures.js";

const backends: CryptoBackendName[] = ["node", "forge"];
// The vectors' merchant key signed this vector; every format of that key must reproduce it.
const checkout = vector("checkout-request-2.0");
let fx: KeyFixtures;

beforeAll(async () => {
	await loadCryptoBackend("forge");
	fx = makeKeyFixtures();
});
afterAll(() => fx?.cleanup());

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const wrap = (text: string, eol: string) => (text.match(/.{1,64}/g) ?? []).join(eol);
const crlf = (pem: string) => pem.replace(/\r?\n/g, "\r\n");
/** As CI secrets and environment variables often carry a PEM: its line breaks as the two characters \n. */
const escapedBreaks = (pem: string, eol = "\\n") => pem.trim().replace(/\r?\n/g, eol);
const indented = (pem: string, by: string) => pem.replace(/^/gm, by);
const base64OfText = (text: string) => Buffer.from(text, "utf8").toString("base64");
const wrap76 = (text: string) => (text.match(/.{1,76}/g) ?? []).join("\n");

/** Every line and every base64 run of the material, so a message can be searched for any of it. */
function materialLines(material: unknown): string[] {
	const text =
		material instanceof Uint8Array ? wrap(base64(material), "\n") : typeof material === "string" ? material : "";
	return text
		.split(/\r?\n/)
		.map((line) => line.trim())
		.filter((line) => line.length >= 8 && !line.startsWith("-----"));
}

/** No line of the key and no long base64 or hex run (a key fragment) appears in `shown`. */
function expectNoKeyMaterial(shown: string, material: unknown) {
	for (const line of materialLines(material)) expect(shown).not.toContain(line);
	expect(shown).not.toMatch(/[A-Za-z0-9+/]{40,}/);
	expect(shown).not.toMatch(/[0-9a-f]{40,}/i);
	expect(shown).not.toContain("-----BEGIN");
}

function expectRefused(load: () => unknown, reason: InvalidKeyReason, material: unknown): InvalidKeyError {
	let caught: unknown;
	try {
		load();
	} catch (error) {
		caught = error;
	}
	expect(caught).toBeInstanceOf(InvalidKeyError);
	const error = caught as InvalidKeyError;
	expect(error.reason).toBe(reason);
	expect(error.message.length).toBeGreaterThan(20);
	expectNoKeyMaterial(error.message, material);
	expectNoKeyMaterial(inspect(error), material);
	return error;
}

type Case = [name: string, input: () => KeyInput, passphrase?: () => string];

const privateFormats: Case[] = [
	["PKCS#1 PEM", () => fx.pkcs1Pem],
	["PKCS#8 PEM", () => fx.pkcs8Pem],
	["PKCS#8 PEM with CRLF line ends", () => crlf(fx.pkcs8Pem)],
	["PKCS#8 PEM with surrounding blank lines and spaces", () => `\n\n  ${fx.pkcs8Pem}\n  \n`],
	["encrypted PKCS#8 PEM (aes-256-cbc) with passphrase", () => fx.encryptedPkcs8Pem, () => fx.passphrase],
	["encrypted PKCS#8 PEM with CRLF", () => crlf(fx.encryptedPkcs8Pem), () => fx.passphrase],
	[
		"legacy encrypted PKCS#1 PEM (Proc-Type: 4,ENCRYPTED) with passphrase",
		() => fx.encryptedPkcs1Pem,
		() => fx.passphrase,
	],
	["PKCS#8 base64 DER on one line", () => pemBody(fx.pkcs8Pem)],
	["PKCS#8 base64 DER with LF line breaks", () => wrap(pemBody(fx.pkcs8Pem), "\n")],
	["PKCS#8 base64 DER with CRLF line breaks", () => wrap(pemBody(fx.pkcs8Pem), "\r\n")],
	["PKCS#1 base64 DER", () => base64(fx.pkcs1Der)],
	["PKCS#1 base64 DER with CRLF line breaks", () => wrap(base64(fx.pkcs1Der), "\r\n")],
	["encrypted PKCS#8 base64 DER", () => wrap(base64(fx.encryptedPkcs8Der), "\n"), () => fx.passphrase],
	["PKCS#8 DER bytes", () => fx.pkcs8Der],
	["PKCS#1 DER bytes", () => fx.pkcs1Der],
	["encrypted PKCS#8 DER bytes", () => fx.encryptedPkcs8Der, () => fx.passphrase],
	// As CI secrets and environment variables carry them.
	["PKCS#8 PEM with its line breaks written as \\n", () => escapedBreaks(fx.pkcs8Pem)],
	["PKCS#1 PEM with its line breaks written as \\r\\n", () => escapedBreaks(fx.pkcs1Pem, "\\r\\n")],
	["PKCS#1 PEM as a JSON string (in double quotes, \\n)", () => JSON.stringify(fx.pkcs1Pem)],
	["PKCS#8 PEM in single quotes (.env)", () => `'${fx.pkcs8Pem}'`],
	["PKCS#8 PEM indented (a YAML block)", () => indented(fx.pkcs8Pem, "    ")],
	["PKCS#8 PEM indented with tabs, in quotes", () => `"${indented(fx.pkcs8Pem, "\t\t")}"`],
	["PKCS#8 PEM on one line, its line breaks turned to spaces", () => fx.pkcs8Pem.trim().replace(/\n/g, " ")],
	[
		"legacy encrypted PKCS#1 PEM with its line breaks written as \\n",
		() => escapedBreaks(fx.encryptedPkcs1Pem),
		() => fx.passphrase,
	],
	["encrypted PKCS#8 PEM as a JSON string", () => JSON.stringify(fx.encryptedPkcs8Pem), () => fx.passphrase],
	["legacy encrypted PKCS#1 PEM with CRLF line ends", () => crlf(fx.encryptedPkcs1Pem), () => fx.passphrase],
	[
		"legacy encrypted PKCS#1 PEM with CR line ends",
		() => fx.encryptedPkcs1Pem.replace(/\n/g, "\r"),
		() => fx.passphrase,
	],
	[
		"legacy encrypted PKCS#1 PEM indented (a YAML block)",
		() => indented(fx.encryptedPkcs1Pem, "  "),
		() => fx.passphrase,
	],
	["PKCS#8 base64 DER with line breaks, in single quotes", () => `'${wrap(pemBody(fx.pkcs8Pem), "\n")}'`],
	["base64 of a PKCS#8 PEM", () => base64OfText(fx.pkcs8Pem)],
	["base64 of a PKCS#1 PEM, wrapped at 76 (base64 -w 76)", () => wrap76(base64OfText(fx.pkcs1Pem))],
	["base64 of a PKCS#8 PEM, in quotes", () => `"${base64OfText(fx.pkcs8Pem)}"`],
];

const publicFormats: Case[] = [
	["SPKI PEM", () => fx.spkiPem],
	["SPKI PEM with CRLF", () => crlf(fx.spkiPem)],
	["PKCS#1 public PEM", () => fx.pkcs1PublicPem],
	["X.509 certificate PEM", () => fx.certificatePem],
	["X.509 certificate PEM with CRLF", () => crlf(fx.certificatePem)],
	["X.509 certificate DER bytes", () => fx.certificateDer],
	["X.509 certificate base64 DER with line breaks", () => wrap(base64(fx.certificateDer), "\n")],
	["SPKI base64 DER on one line", () => pemBody(fx.spkiPem)],
	["SPKI base64 DER with LF line breaks", () => wrap(pemBody(fx.spkiPem), "\n")],
	["SPKI base64 DER with CRLF line breaks", () => wrap(pemBody(fx.spkiPem), "\r\n")],
	["PKCS#1 public base64 DER", () => base64(fx.pkcs1PublicDer)],
	["SPKI DER bytes", () => fx.spkiDer],
	["PKCS#1 public DER bytes", () => fx.pkcs1PublicDer],
	["SPKI PEM with its line breaks written as \\n", () => escapedBreaks(fx.spkiPem)],
	["X.509 certificate PEM as a JSON string", () => JSON.stringify(fx.certificatePem)],
	["SPKI PEM indented, in single quotes", () => `'${indented(fx.spkiPem, "  ")}'`],
	["base64 of an SPKI PEM", () => base64OfText(fx.spkiPem)],
	["base64 of a certificate PEM", () => wrap76(base64OfText(fx.certificatePem))],
];

describe.each(backends)("%s backend", (backend) => {
	describe("loads every private key format", () => {
		it.each(privateFormats)("%s", (_name, input, passphrase) => {
			const privateKey = loadPrivateKey(input(), { passphrase: passphrase?.(), backend });
			expect(privateKey.bits).toBe(2048);
			expect(sealMessage(checkout.input, { privateKey, backend }).signature).toBe(checkout.signature);
		});
	});

	describe("loads every public key format", () => {
		it.each(publicFormats)("%s", (_name, input) => {
			const publicKey = loadPublicKey(input(), { backend });
			expect(publicKey.bits).toBe(2048);
			expect(openMessage(checkout.message, { publicKey, backend })).toEqual(checkout.opened);
		});
	});

	describe("refuses each bad key with its own reason", () => {
		const privateRefusals: Array<[string, () => KeyInput, InvalidKeyReason, (() => string)?]> = [
			["an EC PKCS#8 private key", () => fx.ecPrivatePem, "not_rsa"],
			["an EC traditional private key", () => fx.ecTraditionalPem, "not_rsa"],
			["an EC private key as base64 DER", () => pemBody(fx.ecPrivatePem), "not_rsa"],
			["a 1024-bit private key", () => fx.weakPrivatePem, "too_small"],
			["a 4104-bit signing key", () => fx.largePrivatePem, "too_large"],
			["an encrypted PEM key without passphrase", () => fx.encryptedPkcs8Pem, "passphrase_required"],
			["an encrypted DER key without passphrase", () => fx.encryptedPkcs8Der, "passphrase_required"],
			["a legacy encrypted PKCS#1 key without passphrase", () => fx.encryptedPkcs1Pem, "passphrase_required"],
			[
				"a legacy encrypted PKCS#1 key with a wrong passphrase",
				() => fx.encryptedPkcs1Pem,
				"wrong_passphrase",
				() => "wrong horse",
			],
			[
				"an encrypted PEM key with a wrong passphrase",
				() => fx.encryptedPkcs8Pem,
				"wrong_passphrase",
				() => "wrong horse",
			],
			[
				"an encrypted DER key with a wrong passphrase",
				() => fx.encryptedPkcs8Der,
				"wrong_passphrase",
				() => "wrong horse",
			],
			["an encrypted key with an empty passphrase", () => fx.encryptedPkcs8Pem, "wrong_passphrase", () => ""],
			["an SPKI public key (PEM)", () => fx.spkiPem, "wrong_key_type"],
			["a PKCS#1 public key (PEM)", () => fx.pkcs1PublicPem, "wrong_key_type"],
			["a certificate (PEM)", () => fx.certificatePem, "wrong_key_type"],
			["an SPKI public key (DER bytes)", () => fx.spkiDer, "wrong_key_type"],
			["an SPKI public key (base64 DER)", () => pemBody(fx.spkiPem), "wrong_key_type"],
			["a certificate (DER bytes)", () => fx.certificateDer, "wrong_key_type"],
			["garbage text", () => "this is not a key at all", "unrecognized_format"],
			["garbage base64", () => "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=", "unrecognized_format"],
			[
				"a PEM block with a garbage body",
				() => "-----BEGIN PRIVATE KEY-----\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n-----END PRIVATE KEY-----\n",
				"unrecognized_format",
			],
			["a truncated PEM key", () => fx.pkcs8Pem.slice(0, 400), "unrecognized_format"],
			["an empty string", () => "", "unrecognized_format"],
			["empty bytes", () => new Uint8Array(0), "unrecognized_format"],
		];
		it.each(privateRefusals)("loadPrivateKey: %s -> %s", (_name, input, reason, passphrase) => {
			const material = input();
			expectRefused(() => loadPrivateKey(material, { passphrase: passphrase?.(), backend }), reason, material);
		});

		const publicRefusals: Array<[string, () => KeyInput, InvalidKeyReason]> = [
			["an EC SPKI public key", () => fx.ecPublicPem, "not_rsa"],
			["an EC certificate", () => fx.ecCertificatePem, "not_rsa"],
			["a 1024-bit public key", () => fx.weakPublicPem, "too_small"],
			["a PKCS#8 private key (PEM)", () => fx.pkcs8Pem, "wrong_key_type"],
			["a PKCS#1 private key (PEM)", () => fx.pkcs1Pem, "wrong_key_type"],
			["an encrypted private key (PEM)", () => fx.encryptedPkcs8Pem, "wrong_key_type"],
			["a PKCS#8 private key (DER bytes)", () => fx.pkcs8Der, "wrong_key_type"],
			["a PKCS#1 private key (DER bytes)", () => fx.pkcs1Der, "wrong_key_type"],
			["a PKCS#1 private key (base64 DER)", () => base64(fx.pkcs1Der), "wrong_key_type"],
			[
				"garbage text",
				() => "-----BEGIN PUBLIC KEY-----\nnot base64 at all!\n-----END PUBLIC KEY-----",
				"unrecognized_format",
			],
			["garbage base64", () => "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=", "unrecognized_format"],
		];
		it.each(publicRefusals)("loadPublicKey: %s -> %s", (_name, input, reason) => {
			const material = input();
			expectRefused(() => loadPublicKey(material, { backend }), reason, material);
		});

		it("refuses input that is not a string or bytes, with a typed error", () => {
			for (const input of [null, undefined, 42, {}, ["pem"]]) {
				expectRefused(() => loadPrivateKey(input as unknown as KeyInput, { backend }), "unrecognized_format", "");
				expectRefused(() => loadPublicKey(input as unknown as KeyInput, { backend }), "unrecognized_format", "");
			}
		});

		it("names the rule in the message", () => {
			expect(
				expectRefused(() => loadPrivateKey(fx.ecPrivatePem, { backend }), "not_rsa", fx.ecPrivatePem).message,
			).toMatch(/RSA/);
			expect(
				expectRefused(() => loadPrivateKey(fx.weakPrivatePem, { backend }), "too_small", fx.weakPrivatePem).message,
			).toMatch(/1024 bits.*2048/);
			expect(
				expectRefused(() => loadPrivateKey(fx.largePrivatePem, { backend }), "too_large", fx.largePrivatePem).message,
			).toMatch(/4104 bits.*4096/);
			expect(
				expectRefused(
					() => loadPrivateKey(fx.encryptedPkcs8Pem, { backend }),
					"passphrase_required",
					fx.encryptedPkcs8Pem,
				).message,
			).toMatch(/passphrase/);
			expect(
				expectRefused(() => loadPrivateKey(fx.spkiPem, { backend }), "wrong_key_type", fx.spkiPem).message,
			).toMatch(/public key/i);
			expect(
				expectRefused(() => loadPublicKey(fx.pkcs8Pem, { backend }), "wrong_key_type", fx.pkcs8Pem).message,
			).toMatch(/private key/i);
		});
	});

	describe("opt-ins and limits", () => {
		it("accepts a 1024-bit key pair with allowWeakKeys, and it signs and verifies", () => {
			const privateKey = loadPrivateKey(fx.weakPrivatePem, { allowWeakKeys: true, backend });
			const publicKey = loadPublicKey(fx.weakPublicPem, { allowWeakKeys: true, backend });
			expect(privateKey.bits).toBe(1024);
			const sealed = sealMessage({ orderRef: "weak" }, { privateKey, backend });
			expect(openMessage(sealed, { publicKey, backend })).toEqual({ orderRef: "weak" });
		});

		it("accepts a verification key over 4096 bits: only signing keys are capped", () => {
			expect(loadPublicKey(fx.largePublicPem, { backend }).bits).toBe(4104);
		});

		it("allowWeakKeys does not lift the signing-key cap", () => {
			expectRefused(
				() => loadPrivateKey(fx.largePrivatePem, { allowWeakKeys: true, backend }),
				"too_large",
				fx.largePrivatePem,
			);
		});
	});

	describe("a loaded key never shows its material", () => {
		it.each([
			["PKCS#8 PEM", () => fx.pkcs8Pem],
			["encrypted PKCS#8 PEM", () => fx.encryptedPkcs8Pem],
			["PKCS#1 DER bytes", () => fx.pkcs1Der],
		] as Array<[string, () => KeyInput]>)("%s: inspect, JSON.stringify and String()", (_name, input) => {
			const material = input();
			const privateKey = loadPrivateKey(material, { passphrase: fx.passphrase, backend });
			// Converting to the other backend creates a second handle; that must stay hidden too.
			sealMessage({ a: 1 }, { privateKey, backend: backend === "node" ? "forge" : "node" });
			const shown = [
				inspect(privateKey),
				inspect(privateKey, { showHidden: true, depth: Number.POSITIVE_INFINITY, getters: true }),
				inspect({ nested: { privateKey } }, { depth: Number.POSITIVE_INFINITY }),
				JSON.stringify(privateKey),
				JSON.stringify({ privateKey }),
				String(privateKey),
				`${privateKey}`,
				Object.keys(privateKey).join(","),
			];
			for (const text of shown) {
				expectNoKeyMaterial(text, material);
				expectNoKeyMaterial(text, fx.pkcs8Pem);
			}
			expect(inspect(privateKey)).toMatch(/^PrivateKey \{ bits: 2048, \[redacted key\] \}$/);
			expect(JSON.stringify({ privateKey })).toBe('{"privateKey":"[redacted key]"}');
		});

		it("a public key is shown as PublicKey with its size", () => {
			expect(inspect(loadPublicKey(fx.spkiPem, { backend }))).toBe("PublicKey { bits: 2048, [redacted key] }");
		});
	});

	describe("generateKeyPair", () => {
		it("gives a PKCS#8 / SPKI PEM pair that signs and verifies, on both backends and with openssl", async () => {
			const pair = await generateKeyPair({ backend });
			expect(pair.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\r?\n[\s\S]+-----END PRIVATE KEY-----\r?\n?$/);
			expect(pair.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\r?\n[\s\S]+-----END PUBLIC KEY-----\r?\n?$/);
			const fields = { orderRef: "gen-1", amount: 12.5 };
			for (const signer of backends) {
				for (const verifier of backends) {
					const sealed = sealMessage(fields, {
						privateKey: loadPrivateKey(pair.privateKey, { backend: signer }),
						backend: signer,
					});
					expect(
						openMessage(sealed, { publicKey: loadPublicKey(pair.publicKey, { backend: verifier }), backend: verifier }),
					).toEqual(fields);
				}
			}
			expect(openssl(["pkey", "-noout", "-text"], pair.privateKey).toString()).toMatch(/Private-Key: \(2048 bit/);
			expect(openssl(["pkey", "-pubin", "-noout", "-text"], pair.publicKey).toString()).toMatch(
				/Public-Key: \(2048 bit/,
			);
		});

		it("honours bits", async () => {
			const pair = await generateKeyPair({ bits: 3072, backend });
			expect(loadPrivateKey(pair.privateKey, { backend }).bits).toBe(3072);
			expect(loadPublicKey(pair.publicKey, { backend }).bits).toBe(3072);
		});

		it.each([
			[1024, "too_small"],
			[2040, "too_small"],
			[4104, "too_large"],
			[8192, "too_large"],
			[2049, "unrecognized_format"],
			[2048.5, "unrecognized_format"],
			[Number.NaN, "unrecognized_format"],
		] as Array<[number, InvalidKeyReason]>)("refuses bits=%s (%s)", async (bits, reason) => {
			const attempt = generateKeyPair({ bits, backend });
			await expect(attempt).rejects.toBeInstanceOf(InvalidKeyError);
			await expect(attempt).rejects.toMatchObject({ reason, message: expect.stringMatching(/bits/) });
		});
	});
});

describe("across backends", () => {
	it("a key loaded by one backend signs identically on the other", () => {
		for (const loader of backends) {
			const privateKey = loadPrivateKey(fx.pkcs1Pem, { backend: loader });
			const publicKey = loadPublicKey(fx.certificatePem, { backend: loader });
			for (const backend of backends) {
				expect(sealMessage(checkout.input, { privateKey, backend }).signature).toBe(checkout.signature);
				expect(openMessage(checkout.message, { publicKey, backend })).toEqual(checkout.opened);
			}
		}
	});

	it("both backends read the same key size from every format", () => {
		for (const [, input, passphrase] of privateFormats) {
			expect(backends.map((backend) => loadPrivateKey(input(), { passphrase: passphrase?.(), backend }).bits)).toEqual([
				2048, 2048,
			]);
		}
		for (const [, input] of publicFormats) {
			expect(backends.map((backend) => loadPublicKey(input(), { backend }).bits)).toEqual([2048, 2048]);
		}
	});
});

// Found by the fuzz suite: OpenSSL imports such a key, then refuses to sign with it ("RSA lib").
describe("a damaged key that imports but cannot sign", () => {
	it("fails with InvalidKeyError when it signs, never an OpenSSL error", async () => {
		const { createPrivateKey } = await import("node:crypto");
		const jwk = createPrivateKey(fx.pkcs8Pem).export({ format: "jwk" });
		// The CRT coefficient (q^-1 mod p) grown past p by one leading byte: every other part is intact, so the key parses.
		const qi = Buffer.concat([Buffer.from([1]), Buffer.from(jwk.qi as string, "base64url")]);
		const damaged = createPrivateKey({ key: { ...jwk, qi: qi.toString("base64url") }, format: "jwk" }).export({
			type: "pkcs8",
			format: "pem",
		}) as string;
		const privateKey = loadPrivateKey(damaged, { backend: "node" });
		let refused: unknown;
		try {
			sealMessage({ orderRef: "ORD-1" }, { privateKey, backend: "node" });
		} catch (error) {
			refused = error;
		}
		expect(refused).toBeInstanceOf(InvalidKeyError);
		expect((refused as InvalidKeyError).message).toMatch(/cannot sign/);
		expect((refused as InvalidKeyError).message).not.toContain(pemBody(damaged).slice(0, 16));
	});
});

// Found by the fuzz suite: node-forge decrypted such a key, then threw its own Error reading it.
describe("an encrypted key whose decrypted content is no RSA key", () => {
	it("is refused with InvalidKeyError on the forge backend (as on node)", async () => {
		const forge = (await import("node-forge")).default;
		const { createPrivateKey } = await import("node:crypto");
		const pkcs8 = createPrivateKey(fx.pkcs8Pem).export({ type: "pkcs8", format: "der" });
		const info = forge.asn1.fromDer(forge.util.createBuffer(pkcs8.toString("binary")));
		// PrivateKeyInfo with the RSA algorithm, but an empty SEQUENCE where the RSAPrivateKey belongs.
		const inner = (info.value as Array<typeof info>)[2] as typeof info;
		inner.value = forge.asn1
			.toDer(forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SEQUENCE, true, []))
			.getBytes();
		const encrypted = forge.pki.encryptedPrivateKeyToPem(
			forge.pki.encryptPrivateKeyInfo(info, fx.passphrase, { algorithm: "aes256" }),
		);
		for (const backend of backends) {
			let refused: unknown;
			try {
				loadPrivateKey(encrypted, { passphrase: fx.passphrase, backend });
			} catch (error) {
				refused = error;
			}
			expect(refused, backend).toBeInstanceOf(InvalidKeyError);
		}
	});
});

describe("key text that does not load says what it looked like and what to give instead", () => {
	const FORMS =
		"Give the PEM text (its line breaks real, or written as \\n), base64 of the DER bytes, or base64 of the PEM text.";
	const cases: Array<[string, () => string, RegExp]> = [
		["an empty secret", () => "  \n", /^The private key is empty: the secret or environment variable .* unset/],
		["an unexpanded variable", () => "\u0024{MERCHANT_PRIVATE_KEY}", /looks like a variable reference \(\$NAME\)/],
		["a file path", () => "./keys/merchant-private.pem", /looks like a file path, not the key: pass the file's/],
		["a PEM cut at its first line break", () => "-----BEGIN PRIVATE KEY-----", /no matching -----END line: it was cut/],
		["a PEM cut in its body", () => fx.pkcs8Pem.slice(0, 400), /looks like PEM text but has no matching -----END/],
		[
			"base64 of a PEM cut before encoding",
			() => base64OfText(fx.pkcs8Pem.slice(0, 400)),
			/is base64 of a PEM text that has no matching -----END line/,
		],
		[
			"a PEM with \\n whose body was damaged",
			() => escapedBreaks(fx.pkcs8Pem).replace(/MII/, "MIX"),
			/It was read as PEM text with its line breaks written as \\n, whose content is not a valid key/,
		],
		[
			"base64 that is no key",
			() => "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=",
			/It was read as base64 \(DER bytes\), whose content is not a valid key/,
		],
		["prose", () => "paste the key here", /^The private key is neither PEM text nor base64\./],
		["an empty secret in quotes", () => '" "', /^The private key is empty: the secret/],
		["text around a $ sign", () => "key-$HOME", /^The private key is neither PEM text nor base64\./],
		["a $NAME with text after it", () => "$HOME is unset", /^The private key is neither PEM text nor base64\./],
		["a bare file name", () => "merchant-private.pem", /looks like a file path, not the key/],
		["a path in the home directory", () => "~/keys/merchant-private.pem", /looks like a file path, not the key/],
		["a Windows path", () => "C:\\keys\\merchant-private.pem", /looks like a file path, not the key/],
		["an assignment of a path", () => "key=./merchant.pem", /^The private key is neither PEM text nor base64\./],
		["a path with words after it", () => "./merchant.pem, please", /^The private key is neither PEM text nor base64\./],
		[
			"a whole env-file line",
			() => `KEY='${pemBody(fx.pkcs8Pem)}'`,
			/^The private key is neither PEM text nor base64\./,
		],
		["quoted base64 with words after it", () => `'${pemBody(fx.pkcs8Pem)}' # ours`, /^The private key is neither PEM/],
		[
			"a PEM with real line breaks whose body was damaged",
			() => fx.pkcs8Pem.replace(/MII/, "MIX"),
			/It was read as PEM text, whose content is not a valid key/,
		],
		[
			"base64 of a PEM with \\n whose body was damaged",
			() => base64OfText(escapedBreaks(fx.pkcs8Pem).replace(/MII/, "MIX")),
			/It was read as base64 of a PEM text, whose content is not a valid key/,
		],
	];

	describe.each(backends)("%s backend", (backend) => {
		it.each(cases)("%s", (_name, input, message) => {
			const material = input();
			const error = expectRefused(() => loadPrivateKey(material, { backend }), "unrecognized_format", material);
			expect(error.message).toMatch(message);
			expect(error.message.endsWith(FORMS)).toBe(true);
		});
	});

	it("a PEM cut at a line break says how to store it", () => {
		const error = expectRefused(() => loadPrivateKey("-----BEGIN PRIVATE KEY-----"), "unrecognized_format", "");
		expect(error.message).toBe(
			"The private key looks like PEM text but has no matching -----END line: it was cut, as a multi-line " +
				"secret often is at its first line break (store it with its line breaks written as \\n, or as base64 " +
				`of the PEM). ${FORMS}`,
		);
	});

	it("bytes that are no key are refused without a word on text forms", () => {
		const error = expectRefused(() => loadPublicKey(new Uint8Array([1, 2, 3])), "unrecognized_format", "");
		expect(error.message).not.toContain("It was read as");
	});

	it("a public key says the same, as a public key", () => {
		const error = expectRefused(() => loadPublicKey("$GATEWAY_PUBLIC_KEY"), "unrecognized_format", "");
		expect(error.message).toBe(
			`The public key looks like a variable reference ($NAME) that nothing substituted: set the variable where it runs. ${FORMS}`,
		);
	});
});

describe("a single-quoted base64 key, as docker --env-file carries it, loads from an environment variable", () => {
	// docker --env-file keeps everything after the first "=" as the value, quotes included.
	const fromEnvFile = (line: string) => line.slice(line.indexOf("=") + 1);

	it.each(backends)("%s backend", (backend) => {
		const saved = { ...process.env };
		try {
			process.env.GATEWAY_PUBLIC_KEY = fromEnvFile(`GATEWAY_PUBLIC_KEY='${pemBody(fx.spkiPem)}'`);
			process.env.MERCHANT_PRIVATE_KEY = fromEnvFile(`MERCHANT_PRIVATE_KEY='${pemBody(fx.pkcs8Pem)}'`);
			expect(process.env.GATEWAY_PUBLIC_KEY).toMatch(/^'MIIB[A-Za-z0-9+/=]+'$/);
			const publicKey = loadPublicKey(process.env.GATEWAY_PUBLIC_KEY ?? "", { backend });
			const privateKey = loadPrivateKey(process.env.MERCHANT_PRIVATE_KEY ?? "", { backend });
			expect(openMessage(checkout.message, { publicKey, backend })).toEqual(checkout.opened);
			expect(sealMessage(checkout.input, { privateKey, backend }).signature).toBe(checkout.signature);
		} finally {
			process.env = saved;
		}
	});
});

describe("key text far larger than any key", () => {
	const padded = (length: number) => fx.spkiPem + " ".repeat(length - fx.spkiPem.length);

	it("is refused before it is read, the message giving the limit and the text's size", () => {
		const error = expectRefused(
			() => loadPublicKey(padded(MAX_KEY_TEXT_LENGTH + 1)),
			"unrecognized_format",
			fx.spkiPem,
		);
		expect(error.message).toMatch(
			new RegExp(`^The public key text has ${MAX_KEY_TEXT_LENGTH + 1} characters, over the ${MAX_KEY_TEXT_LENGTH} `),
		);
		const repeated = "-----BEGIN A-----".repeat(Math.ceil((MAX_KEY_TEXT_LENGTH + 1) / 17));
		const { message } = expectRefused(() => loadPrivateKey(repeated), "unrecognized_format", "");
		expect(message.startsWith(`The private key text has ${repeated.length} characters, over the 65536 `)).toBe(true);
	});

	it("text of exactly the limit is still read", () => {
		expect(MAX_KEY_TEXT_LENGTH).toBe(65_536);
		expect(loadPublicKey(padded(MAX_KEY_TEXT_LENGTH)).bits).toBe(2048);
	});

	it("the refusal says the limit, the size and what to give instead", () => {
		const { message } = expectRefused(() => loadPublicKey(padded(MAX_KEY_TEXT_LENGTH + 1)), "unrecognized_format", "");
		expect(message).toBe(
			"The public key text has 65537 characters, over the 65536 that any key's text fits in (a 4096-bit " +
				"private key's PEM has about 3,300): it is not a key. Give the PEM text (its line breaks real, or " +
				"written as \\n), base64 of the DER bytes, or base64 of the PEM text.",
		);
	});

	it("a block's label is capital letters, digits and spaces, at most 64, and its -----BEGIN line must be there", () => {
		for (const label of ["rsa KEY", "KEY rsa", "K".repeat(65)])
			expect(findPemBlock(`-----BEGIN ${label}-----\nMIIB\n-----END ${label}-----`), label).toBeUndefined();
		expect(findPemBlock(`-----BEGIN ${"K".repeat(64)}-----\nMIIB\n-----END ${"K".repeat(64)}-----`)?.body).toBe(
			"\nMIIB\n",
		);
		expect(findPemBlock("0123456789PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----")).toBeUndefined();
	});

	it("only the first -----BEGIN line opens a block: a later block is not looked for", () => {
		expect(findPemBlock(`-----BEGIN A-----\n${fx.spkiPem}`)).toBeUndefined();
		expect(findPemBlock(`-----BEGIN lower-----\n${fx.spkiPem}`)).toBeUndefined();
		expect(findPemBlock(`junk\n${fx.spkiPem}`)?.label).toBe("PUBLIC KEY");
	});

	it("finding the block is linear: 4 MiB of repeated -----BEGIN lines are scanned in seconds, not hours", () => {
		// A lazy regular expression tried at every -----BEGIN took 27 s for 1 MiB and grows with the square of
		// the length (about 7 minutes for 4 MiB). One scan of 4 MiB takes milliseconds; the bound is generous.
		const text = "-----BEGIN A-----".repeat((4 * 1024 * 1024) / 17);
		const started = performance.now();
		expect(findPemBlock(text)).toBeUndefined();
		expect(findPemBlock(`${text}-----END A-----`)).toEqual({ label: "A", body: text.slice(17) });
		expect(performance.now() - started).toBeLessThan(10_000);
	});
});

describe("each refusal names its rule and the key's role", () => {
	const ecPublicDer = () => new Uint8Array(openssl(["pkey", "-pubin", "-outform", "DER"], fx.ecPublicPem));

	it.each(backends)("input that is neither text nor bytes is named by its type (%s)", (backend) => {
		const message = (input: unknown) =>
			expectRefused(() => loadPrivateKey(input as KeyInput, { backend }), "unrecognized_format", "").message;
		expect(message(null)).toBe("A private key must be PEM text, base64 DER or DER bytes, not null.");
		expect(message(42)).toBe("A private key must be PEM text, base64 DER or DER bytes, not number.");
		expect(message(undefined)).toBe("A private key must be PEM text, base64 DER or DER bytes, not undefined.");
	});

	it.each(backends)("a PEM block of an unknown kind is unrecognized, named by its label (%s)", (backend) => {
		const block = (label: string) =>
			`-----BEGIN ${label}-----\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n-----END ${label}-----\n`;
		expect(expectRefused(() => loadPrivateKey(block("FOO"), { backend }), "unrecognized_format", "").message).toBe(
			'A PEM "FOO" block is not a supported private key.',
		);
		expect(expectRefused(() => loadPublicKey(block("FOO"), { backend }), "unrecognized_format", "").message).toBe(
			'A PEM "FOO" block is not a supported public key.',
		);
	});

	it.each(["DSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PARAMETERS", "DSA PARAMETERS", "EC PRIVATE KEY"])(
		"a PEM %s block is refused as not RSA, before it is parsed",
		(label) => {
			const text = `-----BEGIN ${label}-----\nQUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n-----END ${label}-----\n`;
			expect(expectRefused(() => loadPrivateKey(text), "not_rsa", "").message).toBe(
				`A PEM "${label}" block is not an RSA key; the gateway uses RSA keys only.`,
			);
		},
	);

	it.each(backends)(
		"a public key given to sign, or a private key given to verify, says which to give (%s)",
		(backend) => {
			const signingWithPublic = "signing needs the private key; public keys and certificates only verify.";
			expect(expectRefused(() => loadPrivateKey(fx.spkiPem, { backend }), "wrong_key_type", "").message).toBe(
				`Expected a private key but got a PEM "PUBLIC KEY" block: ${signingWithPublic}`,
			);
			expect(expectRefused(() => loadPrivateKey(fx.spkiDer, { backend }), "wrong_key_type", "").message).toBe(
				`Expected a private key but got a public key: ${signingWithPublic}`,
			);
			expect(expectRefused(() => loadPublicKey(fx.pkcs8Pem, { backend }), "wrong_key_type", "").message).toBe(
				'Expected a public key or certificate but got a PEM "PRIVATE KEY" block: pass the public key, never the private key.',
			);
			expect(expectRefused(() => loadPublicKey(fx.pkcs8Der, { backend }), "wrong_key_type", "").message).toBe(
				"Expected a public key or certificate but got a private key: pass the public key, never the private key.",
			);
		},
	);

	it.each(backends)(
		"DER of the other kind is recognised even when it is no RSA key or is encrypted (%s)",
		(backend) => {
			// An EC public key to sign with: it is a public key (not RSA), so the wrong type is what to say.
			expectRefused(() => loadPrivateKey(ecPublicDer(), { backend }), "wrong_key_type", "");
			// An encrypted private key to verify with: it is a private key, though it cannot be read without its passphrase.
			expectRefused(() => loadPublicKey(fx.encryptedPkcs8Der, { backend }), "wrong_key_type", "");
		},
	);

	it.each(backends)("size refusals name the role, the size and the rule (%s)", (backend) => {
		expect(expectRefused(() => loadPublicKey(fx.weakPublicPem, { backend }), "too_small", "").message).toBe(
			"The public key has 1024 bits; at least 2048 are required (allowWeakKeys opts out, for tests only).",
		);
		expect(expectRefused(() => loadPrivateKey(fx.largePrivatePem, { backend }), "too_large", "").message).toBe(
			"The private key has 4104 bits; signing keys may have at most 4096 (the signature field holds 750 characters).",
		);
	});

	it.each(backends)("a signing key of exactly 4096 bits is accepted: the cap is inclusive (%s)", (backend) => {
		const pem = readFileSync(new URL("./size-keys/rsa-4096.pem", import.meta.url), "utf8");
		const privateKey = loadPrivateKey(pem, { backend });
		expect(privateKey.bits).toBe(4096);
		expect(sealMessage({ a: 1 }, { privateKey, backend }).signature).toHaveLength(684);
	});
});

describe("loaded keys and key arguments", () => {
	it("String() of a key is the redacted marker", () => {
		expect(String(loadPrivateKey(fx.pkcs8Pem))).toBe("[redacted key]");
		expect(`${loadPublicKey(fx.spkiPem)}`).toBe("[redacted key]");
	});

	it("only loaded keys are keys: text, bytes, null and other objects are not", () => {
		for (const value of [fx.pkcs8Pem, "x", 7, null, undefined, fx.pkcs8Der, {}]) {
			expect(PrivateKey.isPrivateKey(value)).toBe(false);
			expect(PublicKey.isPublicKey(value)).toBe(false);
		}
		expect(PrivateKey.isPrivateKey(loadPrivateKey(fx.pkcs8Pem))).toBe(true);
		expect(PublicKey.isPublicKey(loadPrivateKey(fx.pkcs8Pem))).toBe(false);
		expect(PublicKey.isPublicKey(loadPublicKey(fx.spkiPem))).toBe(true);
	});

	it("PEM text given where a key goes is parsed once and then reused; bytes are parsed each time", () => {
		expect(toPrivateKey(fx.pkcs8Pem)).toBe(toPrivateKey(fx.pkcs8Pem));
		expect(toPublicKeys(fx.spkiPem)[0]).toBe(toPublicKeys([fx.spkiPem])[0]);
		expect(toPrivateKey(fx.pkcs8Der)).not.toBe(toPrivateKey(fx.pkcs8Der));
		expect(toPublicKeys(fx.spkiDer)[0]).not.toBe(toPublicKeys(fx.spkiDer)[0]);
		const loaded = loadPrivateKey(fx.pkcs8Pem);
		expect(toPrivateKey(loaded)).toBe(loaded);
	});

	it("the cache of parsed key text holds the 32 texts first seen most recently", () => {
		// Texts that differ only in trailing blanks are distinct cache entries for the same key.
		const texts = Array.from({ length: 33 }, (_, index) => `${fx.pkcs8Pem}${" ".repeat(index + 100)}`);
		const first = toPrivateKey(texts[0] ?? "");
		for (const text of texts.slice(1, 32)) toPrivateKey(text);
		expect(toPrivateKey(texts[0] ?? "")).toBe(first);
		toPrivateKey(texts[32] ?? "");
		expect(toPrivateKey(texts[0] ?? "")).not.toBe(first);
	});

	it("an empty list of gateway keys is refused", () => {
		expectRefused(() => toPublicKeys([]), "unrecognized_format", "");
		expect(() => toPublicKeys([])).toThrow("At least one gateway public key is required.");
	});

	it("a public key argument as text: PEM as given, bytes and loaded keys as base64 SPKI DER that loads back", () => {
		expect(publicKeyText(fx.spkiPem)).toBe(fx.spkiPem);
		expect(publicKeyText(fx.spkiDer)).toBe(base64(fx.spkiDer));
		for (const backend of backends) {
			const text = publicKeyText(loadPublicKey(fx.certificatePem, { backend }));
			expect(text).toBe(base64(fx.spkiDer));
			expect(loadPublicKey(text).bits).toBe(2048);
		}
	});
});
