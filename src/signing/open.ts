import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { type CryptoBackendName, resolveBackend } from "./backend.js";
import { isPlainObject, referenceForm, type SignedStringForm } from "./canonical.js";
import { base64Decode, utf8Decode, utf8Encode } from "./encoding.js";
import { parseJsonText, TextNumber, TextObject, type TextValue } from "./json-text.js";
import { type PublicKey, type PublicKeyLike, toPublicKeys } from "./keys.js";
import { phpTrim } from "./php.js";
import type { SignVersion } from "./seal.js";
import { textReferenceForm, wrappedTextReferenceForm } from "./text-form.js";

export interface OpenOptions {
	/** The signer's public key, or several during a key rotation: any one may verify. */
	publicKey: PublicKeyLike | readonly PublicKeyLike[];
	/** Signing versions to accept; a message in another version is refused. @default ["2.0", "2.1"] */
	acceptVersions?: readonly SignVersion[] | undefined;
	/** Crypto backend for this call. @default the current default backend */
	backend?: CryptoBackendName | undefined;
	/**
	 * How a 2.0 message becomes the string its signature covers, for a gateway that signs
	 * differently from the reference form. @default canonicalString (the gateway's reference form)
	 */
	signedString?: SignedStringForm | undefined;
}

/** What `openVerified` learned besides the fields. */
export interface OpenedMessage {
	fields: Record<string, unknown>;
	signVersion: SignVersion;
	/** The envelope's `status` and `message` when the message was a wrapped response. */
	wrapper?: { status: unknown; message: unknown } | undefined;
}

function decodeText(message: Uint8Array, what: string, field: string | undefined): string {
	try {
		return utf8Decode(message);
	} catch {
		throw new MalformedMessageError(`The ${what} is not valid UTF-8.`, field);
	}
}

function parsedObject(text: string, what: string, field: string | undefined): Record<string, unknown> {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw new MalformedMessageError(`The ${what} is not valid JSON.`, field);
	}
	if (!isPlainObject(value)) throw new MalformedMessageError(`The ${what} must be a JSON object.`, field);
	return value;
}

/**
 * Parses raw JSON text or bytes into an object; objects pass through.
 * @throws MalformedMessageError naming `what` (and `field`, when the text came from one).
 */
export function parseJsonObject(message: unknown, what = "message", field?: string): Record<string, unknown> {
	const value = message instanceof Uint8Array ? decodeText(message, what, field) : message;
	if (typeof value === "string") return parsedObject(value, what, field);
	if (!isPlainObject(value)) throw new MalformedMessageError(`The ${what} must be a JSON object.`, field);
	return value;
}

/**
 * Builds what a verifier hands out: plain JavaScript values, every string trimmed with
 * PHP's set at every depth (what the reference form signed), numbers from their literals.
 * Keys are never trimmed: the reference form signs them as they are.
 */
function received(value: unknown, trim: boolean): unknown {
	if (typeof value === "string") return trim ? phpTrim(value) : value;
	if (typeof value !== "object" || value === null) return value;
	if (value instanceof TextNumber) return Number(value.literal);
	if (Array.isArray(value)) return value.map((item) => received(item, trim));
	if (value instanceof TextObject) return receivedObject(value.keys, value.values, trim, false);
	const object = value as Record<string, unknown>;
	const keys = Object.keys(object);
	return receivedObject(
		keys,
		keys.map((key) => object[key]),
		trim,
		false,
	);
}

function receivedObject(keys: readonly string[], values: readonly unknown[], trim: boolean, dropSignature: boolean) {
	const out: Record<string, unknown> = {};
	for (let i = 0; i < keys.length; i++) {
		const key = keys[i] as string;
		if (dropSignature && key === "signature") continue;
		const value = received(values[i], trim);
		// Assigning "__proto__" would set the prototype: define it as the data it is.
		if (key === "__proto__")
			Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
		else out[key] = value;
	}
	return out;
}

/** A 2.0 message as read for verification: the text's tree when the text is at hand, else the object. */
export type FlatSource = TextObject | Record<string, unknown>;

function member(source: FlatSource, key: string): unknown {
	if (!(source instanceof TextObject)) return source[key];
	const index = source.keys.indexOf(key);
	return index < 0 ? undefined : source.values[index];
}

/** @internal also what the doctor hands a custom form, as `openFlat` does */
export function fieldsOf(source: FlatSource, trim: boolean): Record<string, unknown> {
	if (source instanceof TextObject) return receivedObject(source.keys, source.values, trim, true);
	const keys = Object.keys(source).filter((key) => source[key] !== undefined);
	return receivedObject(
		keys,
		keys.map((key) => source[key]),
		trim,
		true,
	);
}

function verifyAny(
	keys: PublicKey[],
	data: Uint8Array,
	signatureText: unknown,
	backendName: CryptoBackendName | undefined,
): void {
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
 * Verifies a signed 2.1 payload text exactly as received, then parses it (D4).
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
	return parsedObject(payload, what, "payload");
}

/**
 * Verifies 2.0 flat fields (D3) and returns what was signed: the fields without the
 * signature, strings trimmed as the reference form trims them. With a custom
 * `signedString` form the fields come back as received, strings trimmed the same way.
 * Numbers come back as JavaScript numbers: a literal that none holds exactly (an integer
 * beyond 2^53, `1.0e+17`, `-0.0`) verifies from the text and comes back as the nearest one.
 * @internal shared by messages and callback URLs
 */
export function openFlat(
	source: FlatSource,
	options: OpenOptions,
	parsed?: Record<string, unknown>,
): Record<string, unknown> {
	checkVersion("2.0", options.acceptVersions);
	const signed = options.signedString ? options.signedString(fieldsOf(source, false)) : referenceForm(source);
	verifyAny(toPublicKeys(options.publicKey), utf8Encode(signed), member(source, "signature"), options.backend);
	if (parsed === undefined) return fieldsOf(source, true);
	const { signature: _signature, ...fields } = parsed;
	return trimmedInPlace(fields) as Record<string, unknown>;
}

/**
 * Trims every string at every depth, in place: for values the SDK parsed itself from the
 * text it verified (`JSON.parse` reads the same values as the order-preserving reader,
 * which refuses duplicate names), so nobody else holds them.
 */
function trimmedInPlace(value: unknown): unknown {
	if (typeof value === "string") return phpTrim(value);
	if (typeof value !== "object" || value === null) return value;
	const container = value as Record<string, unknown>;
	for (const key of Object.keys(container)) {
		const item = container[key];
		if (typeof item === "string" || (typeof item === "object" && item !== null)) container[key] = trimmedInPlace(item);
	}
	return value;
}

/** Reads 2.0 JSON text in its own order and with its number literals; the top level must be an object. */
export function parseFlatText(text: string, what = "message", field?: string): TextObject {
	const tree: TextValue = parseJsonText(text, what, field);
	if (!(tree instanceof TextObject)) throw new MalformedMessageError(`The ${what} must be a JSON object.`, field);
	return tree;
}

/**
 * Verifies a 2.0 message from its text in the reference form, written in one pass over the text
 * beside `object`, which `JSON.parse` read from it and whose strings end up trimmed.
 */
function openFlatText(text: string, object: Record<string, unknown>, options: OpenOptions): OpenedMessage {
	const wrapped = object.signature === undefined && isPlainObject(object.data);
	const signedPart = wrapped ? (object.data as Record<string, unknown>) : object;
	const signed = wrapped ? wrappedTextReferenceForm(text, object) : textReferenceForm(text, object);
	checkVersion("2.0", options.acceptVersions);
	verifyAny(toPublicKeys(options.publicKey), utf8Encode(signed), signedPart.signature, options.backend);
	const { signature: _signature, ...fields } = signedPart;
	if (!wrapped) return { fields, signVersion: "2.0" };
	return { fields, signVersion: "2.0", wrapper: { status: object.status, message: object.message } };
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
	// The values handed out come from `object` when the SDK parsed it from that same text.
	if (typeof text === "string" && options.signedString === undefined) return openFlatText(text, object, options);
	const source: FlatSource = typeof text === "string" ? parseFlatText(text) : object;
	const owned = typeof text === "string";
	const data = member(source, "data");
	if (object.signature === undefined && (data instanceof TextObject || isPlainObject(data))) {
		const fields = openFlat(data, options, owned ? (object.data as Record<string, unknown>) : undefined);
		return { fields, signVersion: "2.0", wrapper: { status: object.status, message: object.message } };
	}
	return { fields: openFlat(source, options, owned ? object : undefined), signVersion: "2.0" };
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
