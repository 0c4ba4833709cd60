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
			// Omitted rather than "" when absent, so an encrypted key reports a missing passphrase, not a wrong one.
			const secret = passphrase === undefined ? {} : { passphrase };
			if (source.encoding === "pem") {
				try {
					return describe(crypto.createPrivateKey({ key: source.text, format: "pem", ...secret }));
				} catch (error) {
					const encrypted = () => failsAskingForPassphrase(() => crypto.createPrivateKey(source.text));
					throw privateKeyError(error, passphrase, encrypted);
				}
			}
			let firstError: unknown;
			for (const type of ["pkcs8", "pkcs1"] as const) {
				try {
					return describe(crypto.createPrivateKey({ key: source.bytes as Buffer, format: "der", type, ...secret }));
				} catch (error) {
					firstError ??= error;
				}
			}
			// Only PKCS#8 DER can be encrypted.
			const der = { key: source.bytes as Buffer, format: "der", type: "pkcs8" } as const;
			const encrypted = () => failsAskingForPassphrase(() => crypto.createPrivateKey(der));
			throw privateKeyError(firstError, passphrase, encrypted);
		},
		importPublicKey(source: KeySource): ParsedKey {
			const unrecognized = () =>
				new InvalidKeyError(
					"unrecognized_format",
					"The public key is not an SPKI or PKCS#1 public key or an X.509 certificate in PEM or base64 DER.",
				);
			if (source.encoding === "pem") {
				try {
					if (source.label === "CERTIFICATE") return describe(new crypto.X509Certificate(source.text).publicKey);
					return describe(crypto.createPublicKey({ key: source.text, format: "pem" }));
				} catch {
					throw unrecognized();
				}
			}
			for (const type of ["spki", "pkcs1"] as const) {
				try {
					return describe(crypto.createPublicKey({ key: source.bytes as Buffer, format: "der", type }));
				} catch {
					// try the next encoding
				}
			}
			try {
				return describe(new crypto.X509Certificate(source.bytes as Buffer).publicKey);
			} catch {
				throw unrecognized();
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
