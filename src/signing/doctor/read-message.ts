import { MalformedMessageError } from "../../errors/malformed-message-error.js";
import { isPlainObject } from "../../internal/plain-object.js";
import { type CallbackInput, readQuery } from "../callback-url.js";
import { decodeText, parseJsonObject } from "../open.js";
import type { FlatSource } from "./candidates.js";

/**
 * A signed message as merchants hold it: the raw body (text or bytes), a parsed JSON
 * object, or a callback redirect (its URL, query string, `URLSearchParams` or query object).
 */
export type DiagnosableMessage = string | Uint8Array | URL | URLSearchParams | Readonly<Record<string, unknown>>;

/**
 * `flat`: an IPN, a query or checkout response; `wrapped`: `{status, message, data | payload}`;
 * `callback`: a redirect.
 */
export type MessageShape = "flat" | "wrapped" | "callback";

/** What one signature covers, in one version. */
export type SignedPart = FlatPart | PayloadPart;

interface FlatPart {
	signVersion: "2.0";
	flat: FlatSource;
	signature: unknown;
}

interface PayloadPart {
	signVersion: "2.1";
	payload: string;
	signature: unknown;
}

export interface ReceivedMessage {
	shape: MessageShape;
	/** `text` when the text was at hand (order and number literals as sent); `object` for a parsed message. */
	readFrom: "text" | "object";
	/** What to try, the version the message claims first. */
	parts: SignedPart[];
}

/** Reads a JSON message as `openVerified` does: a string `payload` means 2.1. */
function readJson(object: Record<string, unknown>, text: string | undefined): ReceivedMessage {
	const readFrom = text === undefined ? "object" : "text";
	if (typeof object.payload === "string") {
		const shape = "status" in object || "message" in object ? "wrapped" : "flat";
		return { shape, readFrom, parts: [{ signVersion: "2.1", payload: object.payload, signature: object.signature }] };
	}
	if ("payload" in object && object.payload !== undefined) {
		throw new MalformedMessageError("payload must be a JSON string.", "payload");
	}
	// A wrapped response signs `data`, a flat one itself.
	const wrapped = object.signature === undefined && isPlainObject(object.data);
	const fields = wrapped ? (object.data as Record<string, unknown>) : object;
	const part: SignedPart = { signVersion: "2.0", flat: { fields, text, wrapped }, signature: fields.signature };
	return { shape: wrapped ? "wrapped" : "flat", readFrom, parts: [part] };
}

/**
 * Reads a callback as `openCallbackUrl` does, and also when a framework dropped
 * `signVersion=2.1`: a signature beside the payload is tried as 2.1, one inside it as 2.0.
 */
function readCallback(input: CallbackInput): ReceivedMessage {
	const { text, signVersion, signature } = readQuery(input);
	const outer: SignedPart = { signVersion: "2.1", payload: text, signature };
	if (signVersion === "2.1") return { shape: "callback", readFrom: "text", parts: [outer] };
	if (signVersion !== undefined && signVersion !== "2.0") {
		throw new MalformedMessageError(`The callback's signVersion must be "2.0" or "2.1".`, "signVersion");
	}
	const hasOuter = signature !== undefined && signature !== "";
	let inner: SignedPart;
	try {
		const fields = parseJsonObject(text, "callback payload", "payload");
		inner = { signVersion: "2.0", flat: { fields, text, wrapped: false }, signature: fields.signature };
	} catch (error) {
		// Not a JSON object: it can only be a 2.1 payload, which needs no parsing to verify.
		if (hasOuter) return { shape: "callback", readFrom: "text", parts: [outer] };
		throw error;
	}
	const innerSigned = inner.signature !== undefined && inner.signature !== null && inner.signature !== "";
	if (!hasOuter) return { shape: "callback", readFrom: "text", parts: [inner] };
	return { shape: "callback", readFrom: "text", parts: innerSigned ? [inner, outer] : [outer] };
}

const UNKNOWN_FORM =
	"A message to diagnose must be JSON text or bytes, a parsed JSON object, or a callback URL or query.";

/** A 2.1 payload is JSON text; a callback's payload is base64, which never starts with `{`. */
const looksLikeJson = (text: string) => text.trimStart().startsWith("{");

/**
 * Works out what a received message is and what its signature(s) cover.
 * @throws MalformedMessageError when it is none of the forms a gateway sends.
 */
export function readReceived(message: unknown): ReceivedMessage {
	if (message instanceof URL || message instanceof URLSearchParams) return readCallback(message);
	const value = message instanceof Uint8Array ? decodeText(message, "message", undefined) : message;
	if (typeof value === "string") {
		return /^\s*[[{"]/.test(value) ? readJson(parseJsonObject(value), value) : readCallback(value);
	}
	if (!isPlainObject(value)) {
		throw new MalformedMessageError(UNKNOWN_FORM);
	}
	if (typeof value.payload === "string" && !looksLikeJson(value.payload)) return readCallback(value);
	return readJson(value, undefined);
}
