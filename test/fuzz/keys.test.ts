import { execFileSync } from "node:child_process";
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe } from "vitest";
import { InvalidKeyError, SignatureVerificationError } from "../../src/index.js";
import {
	type CryptoBackendName,
	loadPrivateKey,
	loadPublicKey,
	openMessage,
	sealMessage,
} from "../../src/signing/index.js";
import { loadCryptoBackend } from "../../src/signing/load-backend.js";
import { keyPath, keys } from "../support/vectors.js";
import { expectNoPollution, typedOutcome, violation } from "./support/checks.js";
import { anything } from "./support/inputs.js";
import {
	applyByteMutation,
	applyTextMutation,
	type ByteMutation,
	byteMutation,
	type TextMutation,
	textMutation,
	unicodePiece,
} from "./support/mutations.js";
import { fuzzTarget } from "./support/runner.js";

/**
 * Keys as merchants paste them: PEM (PKCS#1, PKCS#8, encrypted PKCS#8, OpenSSL's legacy
 * encrypted PKCS#1, SPKI, certificates), base64 DER and DER bytes, of RSA, EC and weak
 * keys, mutated as DER (headers, lengths, bytes) and as text (labels, line breaks, edits),
 * with right, wrong and odd passphrases, on both backends.
 * - loadPrivateKey and loadPublicKey may throw InvalidKeyError only, whose message never
 *   repeats the key;
 * - a key they accept is RSA within the size rules, and signs (or fails with InvalidKeyError)
 *   and verifies without an untyped error.
 */

const PASSPHRASE = "correct horse battery staple";

interface Seed {
	label: string;
	der: Uint8Array;
}

interface DerExport {
	type: "pkcs1" | "pkcs8" | "spki" | "sec1";
	cipher?: string;
	passphrase?: string;
}

function der(key: KeyObject, options: DerExport): Uint8Array {
	return new Uint8Array(key.export({ ...options, format: "der" } as never) as Buffer);
}

/** The certificate comes from the openssl CLI (node:crypto cannot write one). */
function certificateDer(): Uint8Array {
	const dir = mkdtempSync(join(tmpdir(), "mg-fuzz-keys-"));
	try {
		const out = join(dir, "cert.der");
		execFileSync(
			"openssl",
			[
				"req",
				"-x509",
				"-new",
				"-key",
				keyPath("merchant-private"),
				"-subj",
				"/CN=fuzz.test",
				"-days",
				"2",
				"-outform",
				"DER",
				"-out",
				out,
			],
			{
				stdio: "ignore",
			},
		);
		return new Uint8Array(readFileSync(out));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

function seeds(): { seeds: Seed[]; legacyEncrypted: string } {
	const rsa = createPrivateKey(keys.merchantPrivate);
	const rsaPublic = createPublicKey(rsa);
	const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
	const weak = generateKeyPairSync("rsa", { modulusLength: 1024 });
	const encrypted = { cipher: "aes-256-cbc", passphrase: PASSPHRASE };
	const list: Seed[] = [
		{ label: "PRIVATE KEY", der: der(rsa, { type: "pkcs8" }) },
		{ label: "RSA PRIVATE KEY", der: der(rsa, { type: "pkcs1" }) },
		{ label: "ENCRYPTED PRIVATE KEY", der: der(rsa, { type: "pkcs8", ...encrypted }) },
		{ label: "PUBLIC KEY", der: der(rsaPublic, { type: "spki" }) },
		{ label: "RSA PUBLIC KEY", der: der(rsaPublic, { type: "pkcs1" }) },
		{ label: "CERTIFICATE", der: certificateDer() },
		{ label: "PRIVATE KEY", der: der(ec.privateKey, { type: "pkcs8" }) },
		{ label: "EC PRIVATE KEY", der: der(ec.privateKey, { type: "sec1" }) },
		{ label: "PUBLIC KEY", der: der(ec.publicKey, { type: "spki" }) },
		{ label: "PRIVATE KEY", der: der(weak.privateKey, { type: "pkcs8" }) },
		{ label: "PUBLIC KEY", der: der(weak.publicKey, { type: "spki" }) },
	];
	const legacyEncrypted = rsa.export({ type: "pkcs1", format: "pem", ...encrypted }) as string;
	return { seeds: list, legacyEncrypted };
}

const made = seeds();

function pem(label: string, bytes: Uint8Array, lineBreak: string): string {
	const body = Buffer.from(bytes)
		.toString("base64")
		.replace(/(.{64})/g, `$1${lineBreak}`)
		.replace(/\s+$/, "");
	return `-----BEGIN ${label}-----${lineBreak}${body}${lineBreak}-----END ${label}-----${lineBreak}`;
}

/** Edits where DER is fragile: tags and lengths near the start, or anywhere. */
const derEdit = fc.oneof(
	fc.record({ header: fc.constant(true), mutation: byteMutation.map((m) => ({ ...m, position: m.position % 48 })) }),
	fc.record({ header: fc.constant(false), mutation: byteMutation }),
	fc.record({
		header: fc.constant(true),
		mutation: fc.constant({ op: "insert" as const, position: 1, bytes: [0x84, 0xff, 0xff, 0xff, 0xff] }),
	}),
);

const LABELS = [
	"PRIVATE KEY",
	"RSA PRIVATE KEY",
	"ENCRYPTED PRIVATE KEY",
	"PUBLIC KEY",
	"RSA PUBLIC KEY",
	"CERTIFICATE",
	"EC PRIVATE KEY",
	"OPENSSH PRIVATE KEY",
	"X",
];

interface KeyCase {
	input: unknown;
	passphrase: string | undefined;
	backend: CryptoBackendName;
	allowWeakKeys: boolean;
}

const passphrase = fc.oneof(
	{ weight: 4, arbitrary: fc.constant(undefined) },
	{ weight: 3, arbitrary: fc.constant(PASSPHRASE) },
	{ weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
	{ weight: 1, arbitrary: fc.oneof(fc.constant(""), unicodePiece, fc.constant("p".repeat(10_000))) },
);

const keyCases: fc.Arbitrary<KeyCase> = fc
	.record({
		source: fc.oneof(
			{ weight: 12, arbitrary: fc.nat({ max: made.seeds.length - 1 }).map((i) => made.seeds[i] as Seed) },
			{ weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ label: "PRIVATE KEY", der: bytes })) },
		),
		legacy: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
		derEdits: fc.oneof(
			{ weight: 2, arbitrary: fc.constant([]) },
			{ weight: 3, arbitrary: fc.array(derEdit, { minLength: 1, maxLength: 3 }) },
		),
		form: fc.constantFrom("pem", "pem", "base64", "der"),
		label: fc.oneof(
			{ weight: 6, arbitrary: fc.constant(undefined) },
			{ weight: 1, arbitrary: fc.constantFrom(...LABELS) },
		),
		lineBreak: fc.constantFrom("\n", "\r\n", "\r", ""),
		textEdits: fc.oneof(
			{ weight: 3, arbitrary: fc.constant([]) },
			{ weight: 1, arbitrary: fc.array(textMutation, { minLength: 1, maxLength: 2 }) },
		),
		wrapping: fc.constantFrom("", "", "  \n", "junk before\n", "\n-----BEGIN PUBLIC KEY-----\n"),
		passphrase,
		backend: fc.constantFrom<CryptoBackendName>("node", "node", "forge"),
		allowWeakKeys: fc.boolean(),
		odd: fc.oneof({ weight: 25, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: anything }),
	})
	.map((c): KeyCase => {
		const textEdits = c.textEdits as TextMutation[];
		const bytes = (c.derEdits as Array<{ mutation: ByteMutation }>).reduce(
			(out, edit) => applyByteMutation(out, edit.mutation),
			c.source.der,
		);
		let input: unknown;
		if (c.odd !== undefined) input = c.odd;
		else if (c.legacy) input = textEdits.reduce(applyTextMutation, made.legacyEncrypted);
		else if (c.form === "der") input = bytes;
		else {
			const text =
				c.form === "pem"
					? pem(c.label ?? c.source.label, bytes, c.lineBreak)
					: Buffer.from(bytes)
							.toString("base64")
							.replace(/(.{76})/g, `$1${c.lineBreak}`);
			input = c.wrapping + textEdits.reduce(applyTextMutation, text);
		}
		return { input, passphrase: c.passphrase, backend: c.backend, allowWeakKeys: c.allowWeakKeys };
	});

/** The base64 of key material in an input, to make sure no error message repeats any of it. */
function materialOf(input: unknown): string {
	if (input instanceof Uint8Array) return Buffer.from(input).toString("base64");
	if (typeof input !== "string") return "";
	return input
		.split(/\r\n|\r|\n/)
		.filter((line) => !line.startsWith("-----") && !line.includes(":"))
		.join("")
		.replace(/\s+/g, "");
}

function expectNoKeyMaterial(message: string, input: unknown): void {
	const material = materialOf(input);
	for (const run of message.match(/[A-Za-z0-9+/=]{12,}/g) ?? []) {
		for (let i = 0; i + 12 <= run.length; i++) {
			if (material.includes(run.slice(i, i + 12))) violation(`the error message repeats key material: ${message}`);
		}
	}
}

const verifyProbe = sealMessage({ transactionId: "T-1" }, { privateKey: keys.merchantPrivate, signVersion: "2.1" });

beforeAll(async () => {
	await loadCryptoBackend("forge");
});

describe("fuzz: keys", () => {
	fuzzTarget("loadPrivateKey and loadPublicKey: mutated PEM, base64 DER and DER", () =>
		fc.property(keyCases, ({ input, passphrase: secret, backend, allowWeakKeys }) => {
			const privateKey = typedOutcome(
				() => loadPrivateKey(input as string, { passphrase: secret, backend, allowWeakKeys }),
				[InvalidKeyError],
			);
			if (!privateKey.ok) expectNoKeyMaterial(privateKey.error.message, input);
			else {
				const { bits } = privateKey.value;
				if (bits > 4096 || (bits < 2048 && !allowWeakKeys)) violation(`accepted a ${bits}-bit private key`);
				// Signing with an accepted key fails, if at all, with InvalidKeyError
				// (a damaged key imports, then cannot sign).
				typedOutcome(() => sealMessage({ a: "b" }, { privateKey: privateKey.value, backend }), [InvalidKeyError]);
			}
			const publicKey = typedOutcome(
				() => loadPublicKey(input as string, { backend, allowWeakKeys }),
				[InvalidKeyError],
			);
			if (!publicKey.ok) expectNoKeyMaterial(publicKey.error.message, input);
			else {
				const { bits } = publicKey.value;
				if (bits < 2048 && !allowWeakKeys) violation(`accepted a ${bits}-bit public key`);
				typedOutcome(
					() => openMessage(verifyProbe, { publicKey: publicKey.value, backend }),
					[SignatureVerificationError],
				);
			}
			expectNoPollution();
		}),
	);
});
