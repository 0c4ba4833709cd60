/**
 * The gateway's response to a request whose signature it cannot verify:
 * HTTP 500 with `{"status":"error","message":"Invalid signature with merchantId: <id>"}`.
 * Despite the 5xx, the request was refused, not maybe processed: it maps to
 * `AuthenticationError` (never `OutcomeUnknownError`) and is never retried.
 */
const INVALID_SIGNATURE = /^\s*invalid signature with merchant\s?id\b/i;

/** True when an error response is the gateway refusing the request's signature. */
export function isSignatureRefusal(status: number, text: string): boolean {
	if (status < 400 || !/invalid signature/i.test(text)) return false;
	try {
		const body: unknown = JSON.parse(text);
		if (typeof body !== "object" || body === null) return false;
		const { status: outcome, message } = body as Record<string, unknown>;
		return outcome === "error" && typeof message === "string" && INVALID_SIGNATURE.test(message);
	} catch {
		return false;
	}
}
