import { redactText } from "../internal/redact.js";

/**
 * A copy of an underlying error that is safe to attach as `cause`: message
 * redacted, name and code kept, the chain followed a few levels deep.
 */
export function safeCause(error: unknown, depth = 0): Error | undefined {
	if (error === undefined || error === null) return undefined;
	if (!(error instanceof Error)) return new Error(redactText(String(error)).slice(0, 500));
	if ((error as { [SAFE]?: boolean })[SAFE]) return error;
	const copy = new Error(redactText(error.message), depth < 3 && error.cause !== undefined ? { cause: safeCause(error.cause, depth + 1) } : undefined);
	Object.defineProperty(copy, "name", { value: error.name, enumerable: false, configurable: true, writable: true });
	const code = (error as { code?: unknown }).code;
	if (typeof code === "string") Object.defineProperty(copy, "code", { value: code, enumerable: true });
	copy.stack = `${copy.name}: ${copy.message}`;
	Object.defineProperty(copy, SAFE, { value: true });
	return copy;
}

const SAFE = Symbol("merchant-gateway.safe-cause");
