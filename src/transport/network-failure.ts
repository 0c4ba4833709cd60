/**
 * Whether a failed fetch may have delivered the request. Only failures that
 * happen before any byte of the request can reach the gateway (no route, DNS,
 * refused connection, TLS handshake) are "not sent"; anything else (reset,
 * closed socket, timeout while waiting) may have been processed.
 */

const NOT_SENT_CODES = new Set([
	"ECONNREFUSED",
	"ENOTFOUND",
	"EAI_AGAIN",
	"EHOSTUNREACH",
	"ENETUNREACH",
	"EADDRNOTAVAIL",
	"UND_ERR_CONNECT_TIMEOUT",
	"UND_ERR_INVALID_ARG",
	"ERR_INVALID_URL",
	"CERT_HAS_EXPIRED",
	"DEPTH_ZERO_SELF_SIGNED_CERT",
	"SELF_SIGNED_CERT_IN_CHAIN",
	"UNABLE_TO_VERIFY_LEAF_SIGNATURE",
	"ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** The error codes along a cause chain (undici nests them). */
export function errorCodes(error: unknown): string[] {
	const codes: string[] = [];
	let current: unknown = error;
	for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === "string") codes.push(code);
		const errors = (current as { errors?: unknown }).errors;
		if (Array.isArray(errors)) for (const item of errors) codes.push(...errorCodes(item));
		current = (current as { cause?: unknown }).cause;
	}
	return codes;
}

export function failedBeforeSending(error: unknown): boolean {
	const codes = errorCodes(error);
	return (
		codes.length > 0 &&
		codes.every((code) => NOT_SENT_CODES.has(code) || code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_"))
	);
}

/**
 * The deepest message and the first error code along the cause chain, such as
 * `ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)`.
 */
export function describeFailure(error: unknown): string {
	let message = error instanceof Error ? error.message : "network error";
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
		message = current.message || message;
		current = current.cause;
	}
	const [code] = errorCodes(error);
	return code ? `${code} (${message})` : message;
}
