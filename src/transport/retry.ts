import type { RetryOptions } from "ky";
import { wasCut } from "./capped-body.js";
import { isSignatureRefusal } from "./signature-refusal.js";

/**
 * How queries are retried: ky's retry, configured as the client's `maxRetries` and `retryBaseDelayMs` say
 * (their docs give the statuses, the backoff and what `Retry-After` does). Creates are never retried (their
 * `limit` is 0): the gateway has no idempotency key, so a second send could charge or refund twice. Never
 * retried either: the gateway's refusal of the request's signature (an HTTP 500 that will not get better)
 * and a response past `maxResponseBytes` (the next one would most likely be as large).
 */
export const RETRY_STATUSES = [408, 429, 500, 502, 503, 504];
export const MAX_RETRY_AFTER_MS = 60_000;
export const BACKOFF_LIMIT_MS = 8_000;

/** What the retry decision reads from a failed attempt's response (ky's `HTTPError`). */
interface FailedResponse {
	response: Response;
	/** The body text ky read (undefined when empty, unreadable or cut). */
	data: unknown;
}

const isFailedResponse = (error: unknown): error is FailedResponse =>
	typeof error === "object" && error !== null && "response" in error && error.response instanceof Response;

/** ky's retry options for a query. */
export function queryRetry(limit: number, baseDelayMs: number): RetryOptions {
	return {
		limit,
		methods: ["post"],
		statusCodes: RETRY_STATUSES,
		afterStatusCodes: RETRY_STATUSES,
		maxRetryAfter: MAX_RETRY_AFTER_MS,
		backoffLimit: BACKOFF_LIMIT_MS,
		delay: (attempt) => baseDelayMs * 2 ** (attempt - 1),
		jitter: true,
		retryOnTimeout: true,
		shouldRetry: ({ error }) => {
			if (!isFailedResponse(error)) return undefined;
			const { response, data } = error;
			if (wasCut(response)) return false;
			if (typeof data === "string" && isSignatureRefusal(response.status, data)) return false;
			const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
			if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) return false;
			return undefined;
		},
	};
}

/**
 * Seconds (or an HTTP date) from `Retry-After`, as milliseconds from `now`.
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
	if (header === null || header.trim() === "") return undefined;
	const text = header.trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}
