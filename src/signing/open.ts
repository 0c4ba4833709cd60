import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { isPlainObject, setMember } from "../internal/plain-object.js";
import { type CryptoBackendName, resolveBackend } from "./backend.js";
import { canonicalString, routedTextForm } from "./canonical.js";
import { base64Decode, utf8Decode, utf8Encode } from "./encoding.js";
import { type PublicKey, type PublicKeyLike, toPublicKeys } from "./keys.js";
import { phpTrim } from "./php.js";
import type { SealOptions, SignVersion } from "./seal.js";

/** How `openMessage` and `openCallbackUrl` verify. */
export interface OpenOptions extends Pick<SealOptions, "backend" | "signedString"> {
	/** The signer's public key, or several during a key rotation: any one may verify. */
	publicKey: PublicKeyLike | readonly PublicKeyLike[];
	/** Signing versions to accept; a message in another version is refused. @default ["2.0", "2.1"] */
	acceptVersions?: readonly SignVersion[] | undefined;
}

/** What `openVerified` learned besides the fields. */
export interface OpenedMessage {
	fields: Record<string, unknown>;
	signVersion: SignVersion;
	/** The envelope's `status` and `message` when the message was a wrapped response. */
	wrapper?: { status: unknown; message: unknown } | undefined;
}

/** @internal also read by the doctor */
export function decodeText(message: Uint8Array, what: string, field: string | undefined): string {
	try {
		return utf8Decode(message);
	} catch {
		throw new MalformedMessageError(`The ${what} is not valid UTF-8.`, field);
	}
}

/**
 * Parses raw JSON text or bytes into an object; objects pass through.
 * @throws MalformedMessageError naming `what` (and `field`, when the text came from one).
 */
export function parseJsonObject(message: unknown, what = "message", field?: string): Record<string, unknown> {
	let value = message instanceof Uint8Array ? decodeText(message, what, field) : message;
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

/**
 * A trimmed copy of a received value, every string trimmed with PHP's set at every depth (what
 * the reference form signed). Keys are never trimmed: the reference form signs them as they are.
 */
function trimmedCopy(value: unknown): unknown {
	if (typeof value === "string") return phpTrim(value);
	if (typeof value !== "object" || value === null) return value;
	if (Array.isArray(value)) return value.map(trimmedCopy);
	const out: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		setMember(out, key, trimmedCopy((value as Record<string, unknown>)[key]));
	}
	return out;
}

/** The members of a 2.0 message without its signature (and without absent values). */
export function withoutSignature(message: Record<string, unknown>): Record<string, unknown> {
	const { signature: _signature, ...fields } = message;
	return fields;
}

/**
 * A signature field's bytes, or why it has none.
 * @internal also read by the doctor
 */
export function signatureBytes(value: unknown): Uint8Array | "missing" | "malformed" {
	if (value === undefined || value === null || value === "") return "missing";
	const bytes = typeof value === "string" ? base64Decode(value, true) : undefined;
	return bytes && bytes.length > 0 ? bytes : "malformed";
}

function verifyAny(
	keys: PublicKey[],
	data: Uint8Array,
	signatureText: unknown,
	backendName: CryptoBackendName | undefined,
): void {
	const signature = signatureBytes(signatureText);
	if (signature === "missing") {
		throw new SignatureVerificationError("missing_signature", "The message has no signature; it cannot be trusted.");
	}
	if (signature === "malformed") {
		const rule = typeof signatureText === "string" ? "is not valid base64" : "must be a base64 string";
		throw new SignatureVerificationError("malformed_signature", `The signature ${rule}.`);
	}
	const backend = resolveBackend(backendName);
	for (const key of keys) {
		if (backend.verify(key.handleFor(backend.name), data, signature)) return;
	}
	throw new SignatureVerificationError(
		"mismatch",
		`The signature does not match the message with any of the ${keys.length} configured public key(s).`,
	);
}

/**
 * The index of the first key under which `signature` verifies the UTF-8 bytes of `text`, or -1.
 * @internal for the doctor, which tries several signed strings against one signature
 */
export function verifyingKeyIndex(
	text: string,
	signature: Uint8Array,
	keys: readonly PublicKey[],
	backendName?: CryptoBackendName,
): number {
	const backend = resolveBackend(backendName);
	const data = utf8Encode(text);
	return keys.findIndex((key) => backend.verify(key.handleFor(backend.name), data, signature));
}

function checkVersion(version: SignVersion, accepted: readonly SignVersion[] | undefined): void {
	if (accepted && !accepted.includes(version)) {
		throw new SignatureVerificationError(
			"version_not_accepted",
			`Signing version ${version} is not accepted here (accepted: ${accepted.join(", ")}).`,
		);
	}
}

/**
 * Verifies a signed 2.1 payload text exactly as received, then parses it.
 * @internal shared by messages and callback URLs
 */
export function openPayload(
	payload: string,
	signature: unknown,
	options: OpenOptions,
	what = "payload",
): Record<string, unknown> {
	checkVersion("2.1", options.acceptVersions);
	// The signer signed UTF-8 bytes; a lone surrogate has none, so its bytes would be a guess.
	if (!payload.isWellFormed()) throw new MalformedMessageError(`The ${what} is not well-formed Unicode.`, "payload");
	verifyAny(toPublicKeys(options.publicKey), utf8Encode(payload), signature, options.backend);
	return parseJsonObject(payload, what, "payload");
}

/**
 * Verifies a flat 2.0 message and returns what was signed: the fields without the signature,
 * every string trimmed as the reference form trims it (also under a custom `signedString` form,
 * which receives the fields untrimmed). Given `text`, the JSON text `message` was parsed from by
 * the SDK itself, the reference form follows the text's member order and number literals, and
 * `message` is trimmed in place (`wrapper`: the parsed response whose `data` it is); without it, `message` is
 * verified in its own order and left as is.
 * Numbers come back as JavaScript numbers: a literal that none holds exactly (an integer beyond
 * 2^53, `1.0e+17`, `-0.0`) verifies from the text and comes back as the nearest one.
 * @internal shared by messages and callback URLs
 */
export function openFlat(
	message: Record<string, unknown>,
	options: OpenOptions,
	text?: { text: string; wrapper?: Record<string, unknown> | undefined },
): Record<string, unknown> {
	let signed: string;
	if (options.signedString) signed = options.signedString(withoutSignature(message));
	else if (text === undefined) signed = canonicalString(message);
	else signed = routedTextForm(text.text, text.wrapper ?? message, text.wrapper !== undefined).form;
	checkVersion("2.0", options.acceptVersions);
	verifyAny(toPublicKeys(options.publicKey), utf8Encode(signed), message.signature, options.backend);
	const fields = withoutSignature(message);
	// A custom form saw the fields untrimmed, and a caller's object is never changed.
	return options.signedString || text === undefined ? (trimmedCopy(fields) as Record<string, unknown>) : fields;
}

/**
 * Like `openMessage`, and also says which version and envelope the message used.
 */
export function openVerified(message: unknown, options: OpenOptions): OpenedMessage {
	const text = message instanceof Uint8Array ? decodeText(message, "message", undefined) : message;
	const object = parseJsonObject(text);
	if (typeof object.payload === "string") {
		if (object.signVersion !== undefined && object.signVersion !== "2.1") {
			throw new MalformedMessageError(`A message with a payload must have signVersion "2.1".`, "signVersion");
		}
		const fields = openPayload(object.payload, object.signature, options);
		const wrapped = "status" in object || "message" in object;
		return {
			fields,
			signVersion: "2.1",
			wrapper: wrapped ? { status: object.status, message: object.message } : undefined,
		};
	}
	if ("payload" in object && object.payload !== undefined) {
		throw new MalformedMessageError("payload must be a JSON string.", "payload");
	}
	// 2.0 signs nested objects in the signer's order and numbers by their literals: read the text itself.
	const wrapped = object.signature === undefined && isPlainObject(object.data);
	const signedPart = wrapped ? (object.data as Record<string, unknown>) : object;
	const source = typeof text === "string" ? { text, wrapper: wrapped ? object : undefined } : undefined;
	const fields = openFlat(signedPart, options, source);
	if (!wrapped) return { fields, signVersion: "2.0" };
	return { fields, signVersion: "2.0", wrapper: { status: object.status, message: object.message } };
}

/**
 * Verifies a message signed by the other party and returns its fields without the
 * signature. Detects the form: a string `payload` means 2.1 (verified over the payload
 * text as received, then parsed); otherwise 2.0 flat (or wrapped, when a `data` object
 * carries the signature).
 *
 * Give it the raw body (text or bytes) when you have it: a 2.0 signature covers nested
 * objects in the order the gateway wrote them and numbers as written, which only the
 * text keeps. An already parsed object is verified in its own key order.
 *
 * What comes back is what was signed: under 2.0 every string is trimmed as the gateway's
 * reference form trims it before signing.
 *
 * @throws SignatureVerificationError when no key verifies the message.
 * @throws MalformedMessageError when the message is not of a signed form.
 */
export function openMessage(message: unknown, options: OpenOptions): Record<string, unknown> {
	return openVerified(message, options).fields;
}
