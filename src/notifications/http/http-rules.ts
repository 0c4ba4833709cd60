import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import type { NotificationResponse } from "./exchange.js";

/** The default body limit: an IPN is a few KiB, so 64 KiB is generous. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * Thrown by body readers; becomes the status it names. Test with `ruleStatus`,
 * not `instanceof`: this internal class registers no kind, so across the ESM and
 * CJS builds it is only recognised as an InvalidNotificationError.
 */
export class HttpRuleError extends InvalidNotificationError {
	readonly httpStatus: number;
	constructor(httpStatus: number, message: string, field?: string) {
		super(message, field);
		this.httpStatus = httpStatus;
	}
}

/** How long a body may take to arrive, and the handler's timer to measure it with. */
export interface BodyTimeout {
	/** How long the whole body may take, in ms (the handler's `bodyTimeoutMs`). */
	ms: number;
	/** Starts the timer (the handler's `startTimer`); returns the function that cancels it. */
	start: (onExpiry: () => void, delayMs: number) => () => void;
}

/** What the handler and the body readers throw for a body over `maxBytes`, declared or arriving. */
export function bodyTooLarge(maxBytes: number): HttpRuleError {
	return new HttpRuleError(413, `The body is over ${maxBytes} bytes.`, "body");
}

/** What a body reader rejects with once the body took longer than `ms`. */
export function bodyTimedOut(ms: number): HttpRuleError {
	return new HttpRuleError(408, `The body did not arrive within ${ms} ms.`, "body");
}

/**
 * `application/json`, with no charset or a UTF-8 one (the only encoding JSON
 * allows on the wire, RFC 8259). Case and spacing do not matter.
 */
export function isJsonContentType(header: string | null | undefined): boolean {
	if (!header) return false;
	if (header === "application/json") return true;
	const [mediaType, ...params] = header.split(";");
	if (mediaType?.trim().toLowerCase() !== "application/json") return false;
	for (const param of params) {
		const [name, value] = param.split("=");
		if (name?.trim().toLowerCase() !== "charset") continue;
		const charset = (value ?? "").trim().replace(/^"|"$/g, "").toLowerCase();
		if (charset !== "utf-8" && charset !== "utf8") return false;
	}
	return true;
}

/** A declared Content-Length: `undefined` when absent. */
export function declaredLength(header: string | null | undefined): number | undefined {
	if (header === null || header === undefined || header === "") return undefined;
	const digits = header.trim();
	if (!/^\d{1,15}$/.test(digits))
		throw new HttpRuleError(400, "The Content-Length header is not a number.", "content-length");
	return Number(digits);
}

/** Joins body chunks without `Buffer`, so the handler also runs on edge runtimes. */
export function joinChunks(chunks: readonly Uint8Array[], size: number): Uint8Array {
	if (chunks.length === 1 && chunks[0]) return chunks[0];
	const out = new Uint8Array(size);
	let at = 0;
	for (const chunk of chunks) {
		out.set(chunk, at);
		at += chunk.length;
	}
	return out;
}

/** The HTTP status an `HttpRuleError` names, or `undefined` for any other error. */
export function ruleStatus(error: unknown): number | undefined {
	return error instanceof InvalidNotificationError && typeof (error as Partial<HttpRuleError>).httpStatus === "number"
		? (error as HttpRuleError).httpStatus
		: undefined;
}

/** The headers of every response, Web or node:http. */
export function responseHeaders(response: NotificationResponse): Record<string, string> {
	const headers: Record<string, string> = {
		"content-type": "application/json; charset=utf-8",
		"cache-control": "no-store",
	};
	if (response.allow) headers.allow = response.allow;
	if (response.closeConnection) headers.connection = "close";
	return headers;
}
