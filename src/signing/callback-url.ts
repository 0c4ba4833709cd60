import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { base64Decode, base64Encode, utf8Decode, utf8Encode } from "./encoding.js";
import { type OpenOptions, openFlat, openPayload, parseJsonObject } from "./open.js";
import { type SealOptions, type SignVersion, sealMessage } from "./seal.js";

/**
 * A callback redirect as a framework hands it over: the full URL, its query
 * string, `URLSearchParams`, or a parsed query object (values may be arrays).
 */
export type CallbackInput = string | URL | URLSearchParams | Readonly<Record<string, unknown>>;

/**
 * The callback's parameters, its payload decoded to text.
 * @internal also read by the doctor
 */
export function readQuery(input: CallbackInput): { text: string; signVersion: unknown; signature: unknown } {
	let params: URLSearchParams | undefined;
	if (input instanceof URLSearchParams) params = input;
	else if (input instanceof URL) params = input.searchParams;
	else if (typeof input === "string") {
		const text = input.trim();
		const queryStart = text.indexOf("?");
		const query = queryStart >= 0 ? text.slice(queryStart + 1) : /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? "" : text;
		params = new URLSearchParams(query.split("#")[0]);
	}
	if (!params && (typeof input !== "object" || input === null))
		throw new MalformedMessageError("A callback must be a URL, a query string, URLSearchParams or a query object.");
	const read = (name: string): unknown => {
		if (params) return params.get(name) ?? undefined;
		// A parsed query object may hold a repeated parameter as an array: its first value, as `get` reads.
		const value = (input as Record<string, unknown>)[name];
		return Array.isArray(value) ? value[0] : value;
	};
	return { text: decodePayload(read("payload")), signVersion: read("signVersion"), signature: read("signature") };
}

function decodePayload(payload: unknown): string {
	if (typeof payload !== "string" || payload === "")
		throw new MalformedMessageError("The callback has no payload parameter.", "payload");
	const bytes = base64Decode(payload, true);
	if (!bytes) throw new MalformedMessageError("The callback payload is not valid base64.", "payload");
	try {
		return utf8Decode(bytes);
	} catch {
		throw new MalformedMessageError("The callback payload is not valid UTF-8.", "payload");
	}
}

/**
 * The fields a callback claims, decoded but NOT verified: only to learn which transaction to
 * query when the gateway sent the callback without a signature.
 * @internal
 */
export function unverifiedCallbackFields(input: CallbackInput): Record<string, unknown> {
	return parseJsonObject(readQuery(input).text, "callback payload", "payload");
}

/**
 * Verifies a callback redirect and returns its decoded fields without the
 * signature. 2.0 carries a flat signature inside the decoded JSON; 2.1 carries
 * `signVersion=2.1&signature=...` beside the payload and signs the decoded text.
 * Standard base64, base64url, missing padding and `+` turned into a space are
 * all accepted.
 */
export function openCallbackUrl(
	input: CallbackInput,
	options: OpenOptions,
): {
	/** The verified fields, without the signature. */
	fields: Record<string, unknown>;
	/** The version the callback was signed in. */
	signVersion: SignVersion;
} {
	const { text, signVersion, signature } = readQuery(input);
	if (signVersion === "2.1")
		return { fields: openPayload(text, signature, options, "callback payload"), signVersion: "2.1" };
	if (signVersion !== undefined && signVersion !== "2.0") {
		throw new MalformedMessageError(`The callback's signVersion must be "2.0" or "2.1".`, "signVersion");
	}
	const fields = openFlat(parseJsonObject(text, "callback payload", "payload"), options, { text });
	return { fields, signVersion: "2.0" };
}

function appendQuery(url: string, query: string): string {
	const hashAt = url.indexOf("#");
	const base = hashAt >= 0 ? url.slice(0, hashAt) : url;
	const hash = hashAt >= 0 ? url.slice(hashAt) : "";
	const separator = base.includes("?") ? (base.endsWith("?") || base.endsWith("&") ? "" : "&") : "?";
	return `${base}${separator}${query}${hash}`;
}

/**
 * Builds the signed redirect URL the gateway sends the buyer to. Used by the
 * sandbox and by tests; existing query parameters of `callbackUrl` are kept as written.
 */
export function sealCallbackUrl(callbackUrl: string, fields: Record<string, unknown>, options: SealOptions): string {
	const base64Json = (json: string) => encodeURIComponent(base64Encode(utf8Encode(json)));
	if ((options.signVersion ?? "2.0") === "2.1") {
		const sealed = sealMessage(fields, { ...options, signVersion: "2.1" });
		return appendQuery(
			callbackUrl,
			`payload=${base64Json(sealed.payload)}&signVersion=2.1&signature=${encodeURIComponent(sealed.signature)}`,
		);
	}
	return appendQuery(
		callbackUrl,
		`payload=${base64Json(JSON.stringify(sealMessage(fields, { ...options, signVersion: "2.0" })))}`,
	);
}
