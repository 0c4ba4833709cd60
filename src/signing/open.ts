import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { type CryptoBackendName, resolveBackend } from "./backend.js";
import { canonicalString, isPlainObject } from "./canonical.js";
import { base64Decode, utf8Decode, utf8Encode } from "./encoding.js";
import { type PublicKey, type PublicKeyLike, toPublicKeys } from "./keys.js";
import type { SignVersion } from "./seal.js";

export interface OpenOptions {
	/** The signer's public key, or several during a key rotation: any one may verify. */
	publicKey: PublicKeyLike | readonly PublicKeyLike[];
	/** Signing versions to accept; a message in another version is refused. @default ["2.0", "2.1"] */
	acceptVersions?: readonly SignVersion[] | undefined;
	/** Crypto backend for this call. @default the current default backend */
	backend?: CryptoBackendName | undefined;
}

/** What `openVerified` learned besides the fields. */
export interface OpenedMessage {
	fields: Record<string, unknown>;
	signVersion: SignVersion;
	/** The envelope's `status` and `message` when the message was a wrapped response. */
	wrapper?: { status: unknown; message: unknown } | undefined;
}

/**
 * Parses raw JSON text or bytes into an object; objects pass through.
 * @throws MalformedMessageError naming `what` (and `field`, when the text came from one).
 */
export function parseJsonObject(message: unknown, what = "message", field?: string): Record<string, unknown> {
	let value = message;
	if (message instanceof Uint8Array) {
		try {
			value = utf8Decode(message);
		} catch {
			throw new MalformedMessageError(`The ${what} is not valid UTF-8.`, field);
		}
	}
	if (typeof value === "string") {
		try {
			value = JSON.parse(value);
		} catch {
			throw new MalformedMessageError(`The ${what} is not valid JSON.`, field);
		}
	}
	if (!isPlainObject(value)) throw new MalformedMessageError(`The ${what} must be a JSON object.`, field);
	return value;
}

function verifyAny(keys: PublicKey[], data: Uint8Array, signatureText: unknown, backendName: CryptoBackendName | undefined): void {
	if (signatureText === undefined || signatureText === null || signatureText === "") {
		throw new SignatureVerificationError("missing_signature", "The message has no signature; it cannot be trusted.");
	}
	if (typeof signatureText !== "string") {
		throw new SignatureVerificationError("malformed_signature", "The signature must be a base64 string.");
	}
	const signature = base64Decode(signatureText, true);
	if (!signature || signature.length === 0) {
		throw new SignatureVerificationError("malformed_signature", "The signature is not valid base64.");
	}
	const backend = resolveBackend(backendName);
	for (const key of keys) {
		if (backend.verify(key.handleFor(backend.name), data, signature)) return;
	}
	throw new SignatureVerificationError("mismatch", `The signature does not match the message with any of the ${keys.length} configured public key(s).`);
}

function checkVersion(version: SignVersion, accepted: readonly SignVersion[] | undefined): void {
	if (accepted && !accepted.includes(version)) {
		throw new SignatureVerificationError("version_not_accepted", `Signing version ${version} is not accepted here (accepted: ${accepted.join(", ")}).`);
	}
}

/**
 * Verifies a signed 2.1 payload text exactly as received, then parses it (D4).
 * @internal shared by messages and callback URLs
 */
export function openPayload(payload: string, signature: unknown, options: OpenOptions, what = "payload"): Record<string, unknown> {
	checkVersion("2.1", options.acceptVersions);
	verifyAny(toPublicKeys(options.publicKey), utf8Encode(payload), signature, options.backend);
	return parseJsonObject(payload, what, "payload");
}

/**
 * Verifies 2.0 flat fields: the signature covers their canonical string (D3).
 * @internal shared by messages and callback URLs
 */
export function openFlat(fields: Record<string, unknown>, options: OpenOptions): Record<string, unknown> {
	checkVersion("2.0", options.acceptVersions);
	verifyAny(toPublicKeys(options.publicKey), utf8Encode(canonicalString(fields)), fields.signature, options.backend);
	// Spread defines own properties, so a "__proto__" key stays data, never a prototype.
	const { signature: _signature, ...rest } = fields;
	return rest;
}

/**
 * Like `openMessage`, and also says which version and envelope the message used.
 */
export function openVerified(message: unknown, options: OpenOptions): OpenedMessage {
	const object = parseJsonObject(message);
	if (typeof object.payload === "string") {
		if (object.signVersion !== undefined && object.signVersion !== "2.1") {
			throw new MalformedMessageError(`A message with a payload must have signVersion "2.1".`, "signVersion");
		}
		const fields = openPayload(object.payload, object.signature, options);
		const wrapped = "status" in object || "message" in object;
		return { fields, signVersion: "2.1", wrapper: wrapped ? { status: object.status, message: object.message } : undefined };
	}
	if ("payload" in object && object.payload !== undefined) {
		throw new MalformedMessageError("payload must be a JSON string.", "payload");
	}
	if (object.signature === undefined && isPlainObject(object.data)) {
		return { fields: openFlat(object.data, options), signVersion: "2.0", wrapper: { status: object.status, message: object.message } };
	}
	return { fields: openFlat(object, options), signVersion: "2.0" };
}

/**
 * Verifies a message signed by the other party and returns its fields without
 * the signature. Detects the form: a string `payload` means 2.1 (verified over
 * the payload text as received, then parsed); otherwise 2.0 flat (or wrapped,
 * when a `data` object carries the signature). Accepts the raw body (text or
 * bytes) or an already parsed object.
 *
 * @throws SignatureVerificationError when no key verifies the message.
 * @throws MalformedMessageError when the message is not of a signed form.
 */
export function openMessage(message: unknown, options: OpenOptions): Record<string, unknown> {
	return openVerified(message, options).fields;
}
