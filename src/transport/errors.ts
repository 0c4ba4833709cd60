import { type KnownSecrets, redactText } from "../internal/redact.js";

/**
 * A copy of an underlying error that is safe to attach as `cause`: message
 * redacted (the request's known secrets too, when given), name and code kept,
 * the chain followed a few levels deep.
 */
export function safeCause(error: unknown, secrets?: KnownSecrets, depth = 0): Error | undefined {
	if (error === undefined || error === null) return undefined;
	if (!(error instanceof Error)) return new Error(redactText(String(error), secrets).slice(0, 500));
	if ((error as { [SAFE]?: boolean })[SAFE]) return error;
	const cause = depth < 3 && error.cause !== undefined ? safeCause(error.cause, secrets, depth + 1) : undefined;
	const copy = new Error(redactText(error.message, secrets), cause === undefined ? undefined : { cause });
	Object.defineProperty(copy, "name", { value: error.name, enumerable: false, configurable: true, writable: true });
	const code = (error as { code?: unknown }).code;
	if (typeof code === "string") Object.defineProperty(copy, "code", { value: code, enumerable: true });
	copy.stack = `${copy.name}: ${copy.message}`;
	Object.defineProperty(copy, SAFE, { value: true });
	return copy;
}

const SAFE = Symbol("merchant-gateway.safe-cause");
