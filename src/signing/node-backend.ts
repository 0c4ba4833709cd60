import type * as NodeCrypto from "node:crypto";
import { CryptoBackendError } from "../errors/crypto-backend-error.js";
import { InvalidKeyError } from "../errors/invalid-key-error.js";
import { nodeTooOld, nodeVersion } from "../internal/node-floor.js";
import type { CryptoBackend, KeySource, ParsedKey } from "./backend.js";

type KeyObject = NodeCrypto.KeyObject;

/**
 * `node:crypto` is reached through `process.getBuiltinModule` rather than a
 * static import, so bundles for edge runtimes do not fail on it and importing
 * the SDK costs nothing until the first signature.
 */
function nodeCrypto(): typeof NodeCrypto {
	const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
		?.getBuiltinModule;
	const crypto = getBuiltin?.("node:crypto") as typeof NodeCrypto | undefined;
	if (crypto) return crypto;
	const node = nodeVersion();
	// On Node.js, process.getBuiltinModule is missing only before 22.3: say so rather than suggest forge.
	const tooOld = node === undefined ? undefined : nodeTooOld(node);
	throw new CryptoBackendError(tooOld ?? "node:crypto is not available in this runtime; use the forge backend.");
}

function failsAskingForPassphrase(read: () => unknown): boolean {
	try {
		read();
		return false;
	} catch (error) {
		return asksForPassphrase(error);
	}
}

/** The key that the first of `reads` to succeed makes; else the first one's error, thrown. */
function firstKey(reads: ReadonlyArray<() => KeyObject>): ParsedKey {
	let firstError: unknown;
	for (const read of reads) {
		try {
			return describe(read());
		} catch (error) {
			firstError ??= error;
		}
	}
	throw firstError;
}

function describe(key: KeyObject): ParsedKey {
	return { handle: key, type: key.asymmetricKeyType ?? "unknown", bits: key.asymmetricKeyDetails?.modulusLength ?? 0 };
}

function errorCode(error: unknown): string {
	return typeof error === "object" && error !== null && "code" in error
		? String((error as { code: unknown }).code)
		: "";
}

/** OpenSSL 3 reports a PEM key read without passphrase as an interrupted password prompt. */
function asksForPassphrase(error: unknown): boolean {
	const code = errorCode(error);
	return code === "ERR_MISSING_PASSPHRASE" || code === "ERR_OSSL_CRYPTO_INTERRUPTED_OR_CANCELLED";
}

/**
 * `encrypted`: the key asks for a passphrase when read without one. Once it has
 * one, any failure is a wrong passphrase: about 1 in 256 wrong ones decrypt to
 * bytes with valid padding, which OpenSSL then reports as a decoding error.
 */
function privateKeyError(error: unknown, passphrase: string | undefined, encrypted: () => boolean): InvalidKeyError {
	if (passphrase === undefined && asksForPassphrase(error))
		return new InvalidKeyError("passphrase_required", "The private key is encrypted: pass its passphrase.");
	const decryptFailed = /DECRYPT/i.test(errorCode(error) + String((error as Error)?.message));
	if (passphrase !== undefined && (decryptFailed || encrypted())) {
		return new InvalidKeyError("wrong_passphrase", "The private key could not be decrypted: the passphrase is wrong.");
	}
	return new InvalidKeyError(
		"unrecognized_format",
		"The private key is not a PKCS#1, PKCS#8 or encrypted PKCS#8 key in PEM or base64 DER.",
	);
}

export function createNodeBackend(): CryptoBackend {
	const crypto = nodeCrypto();
	return {
		name: "node",
		importPrivateKey(source: KeySource, passphrase: string | undefined): ParsedKey {
			// PEM names its type; DER is read as PKCS#8 (the only one that can be encrypted), then as PKCS#1.
			const inputs: NodeCrypto.PrivateKeyInput[] =
				source.encoding === "pem"
					? [{ key: source.text, format: "pem" }]
					: (["pkcs8", "pkcs1"] as const).map((type) => ({ key: source.bytes as Buffer, format: "der", type }));
			// Omitted rather than "" when absent, so an encrypted key reports a missing passphrase, not a wrong one.
			const secret = passphrase === undefined ? {} : { passphrase };
			try {
				return firstKey(inputs.map((input) => () => crypto.createPrivateKey({ ...input, ...secret })));
			} catch (error) {
				const encrypted = () =>
					failsAskingForPassphrase(() => crypto.createPrivateKey(inputs[0] as NodeCrypto.PrivateKeyInput));
				throw privateKeyError(error, passphrase, encrypted);
			}
		},
		importPublicKey(source: KeySource): ParsedKey {
			const key = source.encoding === "pem" ? source.text : (source.bytes as Buffer);
			const certificate = () => new crypto.X509Certificate(key).publicKey;
			const der = (type: "spki" | "pkcs1") => () => crypto.createPublicKey({ key, format: "der", type });
			let reads = [der("spki"), der("pkcs1"), certificate];
			if (source.encoding === "pem")
				reads = [source.label === "CERTIFICATE" ? certificate : () => crypto.createPublicKey({ key, format: "pem" })];
			try {
				return firstKey(reads);
			} catch {
				throw new InvalidKeyError(
					"unrecognized_format",
					"The public key is not an SPKI or PKCS#1 public key or an X.509 certificate in PEM or base64 DER.",
				);
			}
		},
		exportPrivateKey(handle: unknown): Uint8Array {
			return (handle as KeyObject).export({ format: "der", type: "pkcs8" });
		},
		exportPublicKey(handle: unknown): Uint8Array {
			return (handle as KeyObject).export({ format: "der", type: "spki" });
		},
		sign(handle: unknown, data: Uint8Array): Uint8Array {
			try {
				return crypto.sign("md5", data, handle as KeyObject);
			} catch (error) {
				// OpenSSL imports a key whose RSA parts disagree (a damaged file), then refuses to sign with it.
				if (errorCode(error) === "ERR_OSSL_RSA_LIB") {
					throw new InvalidKeyError(
						"unrecognized_format",
						"The private key cannot sign: its RSA parts are inconsistent (the key is damaged).",
					);
				}
				throw new CryptoBackendError(`node:crypto could not sign (${errorCode(error) || "no error code"}).`, {
					cause: error,
				});
			}
		},
		verify(handle: unknown, data: Uint8Array, signature: Uint8Array): boolean {
			return crypto.verify("md5", data, handle as KeyObject, signature);
		},
		generateKeyPair(bits: number) {
			return new Promise((resolve, reject) => {
				crypto.generateKeyPair(
					"rsa",
					{
						modulusLength: bits,
						publicExponent: 0x10001,
						publicKeyEncoding: { type: "spki", format: "pem" },
						privateKeyEncoding: { type: "pkcs8", format: "pem" },
					},
					(error, publicKey, privateKey) => (error ? reject(error) : resolve({ privateKey, publicKey })),
				);
			});
		},
	};
}
