import forge from "node-forge";
import type { InvalidKeyError, InvalidKeyReason } from "../errors/invalid-key-error.js";
import type { CryptoBackend, KeySource, ParsedKey } from "./backend.js";

/**
 * node-forge backend, for runtimes without `node:crypto` (WebCrypto has no MD5).
 * This module is only ever loaded through a dynamic import, so Node users never
 * pay for node-forge. Output is byte-identical to the node backend.
 */

type ForgePrivate = forge.pki.rsa.PrivateKey;
type ForgePublic = forge.pki.rsa.PublicKey;

const toBinary = (bytes: Uint8Array): string => {
	let out = "";
	for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
	return out;
};
const fromBinary = (binary: string): Uint8Array => {
	const bytes = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
	return bytes;
};

const RSA_OID = forge.pki.oids.rsaEncryption;

/**
 * A key this backend refuses: the reason and message of the `InvalidKeyError` it becomes as it leaves the
 * backend. The error class is handed in by the loader, so that this chunk shares no module with the code
 * that loads it (a bundler would split a shared module into a file of its own, loaded up front).
 */
class KeyRefusal {
	constructor(
		readonly reason: InvalidKeyReason,
		readonly message: string,
	) {}
}

function rsa(key: ForgePrivate | ForgePublic | undefined | null): ParsedKey {
	if (!key || !("n" in key) || !key.n) throw new KeyRefusal("not_rsa", "The key is not an RSA key.");
	return { handle: key, type: "rsa", bits: key.n.bitLength() };
}

/** What `read` returns, or undefined when it throws (forge throws on malformed input and wrong passphrases). */
function orUndefined<T>(read: () => T): T | undefined {
	try {
		return read();
	} catch {
		return undefined;
	}
}

/** Reads the algorithm OID of a PKCS#8 or SPKI structure so non-RSA keys get their own error. */
function algorithmOid(asn1: forge.asn1.Asn1, index: number): string | undefined {
	return orUndefined(() => {
		const seq = (asn1.value as forge.asn1.Asn1[])[index];
		const oid = (seq?.value as forge.asn1.Asn1[] | undefined)?.[0];
		return oid && oid.type === forge.asn1.Type.OID ? forge.asn1.derToOid(oid.value as string) : undefined;
	});
}

/**
 * The key algorithm OID inside a certificate's subjectPublicKeyInfo: the tbsCertificate child shaped SEQ { SEQ {
 * OID, ... }, BIT STRING }.
 */
function certificateKeyOid(asn1: forge.asn1.Asn1): string | undefined {
	const tbs = (asn1.value as forge.asn1.Asn1[])[0];
	if (!tbs || !Array.isArray(tbs.value)) return undefined;
	for (const child of tbs.value) {
		const parts = Array.isArray(child.value) ? child.value : [];
		if (parts[0]?.type === forge.asn1.Type.SEQUENCE && parts[1]?.type === forge.asn1.Type.BITSTRING)
			return algorithmOid(child, 0);
	}
	return undefined;
}

function certificateKey(asn1: forge.asn1.Asn1): ParsedKey {
	const oid = certificateKeyOid(asn1);
	if (oid !== undefined && oid !== RSA_OID)
		throw new KeyRefusal("not_rsa", "The certificate's public key is not an RSA key.");
	return rsa(forge.pki.certificateFromAsn1(asn1).publicKey as ForgePublic);
}

const parseDer = (bytes: Uint8Array) => orUndefined(() => forge.asn1.fromDer(toBinary(bytes)));

const pemToDer = (text: string) =>
	orUndefined(() => {
		const [message] = forge.pem.decode(text);
		return message ? fromBinary(message.body) : undefined;
	});

function privateFromAsn1(asn1: forge.asn1.Asn1): ParsedKey {
	// Only a PrivateKeyInfo (version INTEGER, then the algorithm) names its algorithm; PKCS#1 has no OID.
	const first = (asn1.value as forge.asn1.Asn1[])[0];
	const oid = first?.type === forge.asn1.Type.INTEGER ? algorithmOid(asn1, 1) : undefined;
	if (oid !== undefined && oid !== RSA_OID) throw new KeyRefusal("not_rsa", "The private key is not an RSA key.");
	return rsa(forge.pki.privateKeyFromAsn1(asn1) as ForgePrivate);
}

const passphraseRequired = () =>
	new KeyRefusal("passphrase_required", "The private key is encrypted: pass its passphrase.");
const wrongPassphrase = () =>
	new KeyRefusal("wrong_passphrase", "The private key could not be decrypted: the passphrase is wrong.");

/** OpenSSL's legacy encrypted PKCS#1 PEM (`Proc-Type: 4,ENCRYPTED` headers), which node:crypto also reads. */
const LEGACY_ENCRYPTED = /^Proc-Type:\s*4,\s*ENCRYPTED/m;

function legacyEncrypted(pem: string, passphrase: string | undefined): ParsedKey {
	if (passphrase === undefined) throw passphraseRequired();
	const key = orUndefined(() => forge.pki.decryptRsaPrivateKey(pem, passphrase));
	if (!key) throw wrongPassphrase();
	return rsa(key);
}

/**
 * The key `read` makes of the source's ASN.1: what forge cannot parse, or throws on, is refused as
 * `unrecognized` (this backend's own refusals pass as they are).
 */
function fromAsn1(source: KeySource, unrecognized: string, read: (asn1: forge.asn1.Asn1) => ParsedKey): ParsedKey {
	const der = source.encoding === "der" ? source.bytes : pemToDer(source.text);
	const asn1 = der && parseDer(der);
	try {
		if (asn1) return read(asn1);
	} catch (error) {
		if (error instanceof KeyRefusal) throw error;
	}
	throw new KeyRefusal("unrecognized_format", unrecognized);
}

function importPrivate(source: KeySource, passphrase: string | undefined): ParsedKey {
	if (source.encoding === "pem" && LEGACY_ENCRYPTED.test(source.text)) return legacyEncrypted(source.text, passphrase);
	const unrecognized = "The private key is not a PKCS#1, PKCS#8 or encrypted PKCS#8 key in PEM or base64 DER.";
	return fromAsn1(source, unrecognized, (asn1) => {
		const encrypted =
			source.encoding === "pem"
				? source.label === "ENCRYPTED PRIVATE KEY"
				: algorithmOid(asn1, 0)?.startsWith("1.2.840.113549.1.5") === true;
		if (!encrypted) return privateFromAsn1(asn1);
		if (passphrase === undefined) throw passphraseRequired();
		const decrypted = orUndefined(() => forge.pki.decryptPrivateKeyInfo(asn1, passphrase));
		if (!decrypted) throw wrongPassphrase();
		try {
			return privateFromAsn1(decrypted);
		} catch (error) {
			// Bytes that decrypt but are no key: a wrong passphrase whose padding happened to check out.
			if (error instanceof KeyRefusal && error.reason === "not_rsa") throw error;
			throw wrongPassphrase();
		}
	});
}

function importPublic(source: KeySource): ParsedKey {
	const unrecognized =
		"The public key is not an SPKI or PKCS#1 public key or an X.509 certificate in PEM or base64 DER.";
	return fromAsn1(source, unrecognized, (asn1) => {
		if (source.encoding === "pem" && source.label === "CERTIFICATE") return certificateKey(asn1);
		const oid = algorithmOid(asn1, 0);
		if (oid !== undefined && oid !== RSA_OID && !oid.startsWith("1.2.840.113549.1.1.")) {
			throw new KeyRefusal("not_rsa", "The public key is not an RSA key.");
		}
		try {
			return rsa(forge.pki.publicKeyFromAsn1(asn1) as ForgePublic);
		} catch (error) {
			if (source.encoding === "der") return certificateKey(asn1);
			throw error;
		}
	});
}

/** The backend; `InvalidKey` is the SDK's `InvalidKeyError`, which key imports throw. */
export function createForgeBackend(InvalidKey: typeof InvalidKeyError): CryptoBackend {
	const asInvalidKey = <T>(read: () => T): T => {
		try {
			return read();
		} catch (error) {
			throw error instanceof KeyRefusal ? new InvalidKey(error.reason, error.message) : error;
		}
	};

	return {
		name: "forge",
		importPrivateKey(source: KeySource, passphrase: string | undefined): ParsedKey {
			return asInvalidKey(() => importPrivate(source, passphrase));
		},
		importPublicKey(source: KeySource): ParsedKey {
			return asInvalidKey(() => importPublic(source));
		},
		exportPrivateKey(handle: unknown): Uint8Array {
			const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(handle as ForgePrivate));
			return fromBinary(forge.asn1.toDer(info).getBytes());
		},
		exportPublicKey(handle: unknown): Uint8Array {
			return fromBinary(forge.asn1.toDer(forge.pki.publicKeyToAsn1(handle as ForgePublic)).getBytes());
		},
		sign(handle: unknown, data: Uint8Array): Uint8Array {
			const digest = forge.md.md5.create();
			digest.update(toBinary(data));
			return fromBinary((handle as ForgePrivate).sign(digest));
		},
		verify(handle: unknown, data: Uint8Array, signature: Uint8Array): boolean {
			const digest = forge.md.md5.create();
			digest.update(toBinary(data));
			try {
				return (handle as ForgePublic).verify(digest.digest().bytes(), toBinary(signature));
			} catch {
				return false;
			}
		},
		generateKeyPair(bits: number) {
			return new Promise((resolve, reject) => {
				forge.pki.rsa.generateKeyPair({ bits, e: 0x10001 }, (error, pair) => {
					if (error) return reject(error);
					const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(pair.privateKey));
					resolve({
						privateKey: forge.pki.privateKeyInfoToPem(info),
						publicKey: forge.pki.publicKeyToPem(pair.publicKey),
					});
				});
			});
		},
	};
}
