/**
 * When and how long to wait before retrying a QUERY request. Create requests
 * (checkout, card charge, refund) are never retried once they may have been
 * sent: the gateway has no idempotency key, so a retry could charge or refund
 * twice.
 */

/** Statuses worth another try on a query: timeouts, rate limits, server errors. */
export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 429 || status >= 500;
}

/** Longest Retry-After the client waits for; a longer one ends the retries. */
export const MAX_RETRY_AFTER_MS = 60_000;
const MAX_BACKOFF_MS = 8_000;

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

/**
 * Delay before retry number `retry` (1-based): exponential backoff from
 * `baseDelayMs` with full jitter, capped at 8 s. Retry-After, when given, wins.
 */
export function retryDelayMs(
	retry: number,
	baseDelayMs: number,
	retryAfterMs: number | undefined,
	random: () => number = Math.random,
): number {
	if (retryAfterMs !== undefined) return retryAfterMs;
	const ceiling = Math.min(MAX_BACKOFF_MS, baseDelayMs * 2 ** (retry - 1));
	return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
