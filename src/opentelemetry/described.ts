import { GatewayError } from "../errors/gateway-error.js";
import { KnownSecrets, telemetryMessage } from "../internal/redact.js";
import { classNameValue } from "./values.js";

/** An error as telemetry records it: its class name and its message, redacted. */
export interface DescribedError {
	type: string;
	message: string;
}

/** Longest exception message a span keeps. */
const MAX_MESSAGE_LENGTH = 1000;
/** What stands for the message of an error the SDK did not write. */
export const MESSAGE_NOT_RECORDED = "(not recorded: the message of an error thrown outside the SDK)";

/**
 * An error's class name, as `error.type` and `exception.type` give it (`_OTHER` for a thrown non-error, or a
 * name that is no class name).
 */
export function errorType(error: unknown): string {
	return classNameValue(typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined);
}

/**
 * Whether the SDK (or the runtime) wrote the error's message, so that redaction knows its shape: the SDK's
 * errors, and the runtime's DOMExceptions (a timeout, an abort). An error your code threw (a callback's,
 * a signal's reason) may say anything about anyone: only its class name is recorded.
 */
function messageIsKnown(error: unknown): boolean {
	return error instanceof GatewayError || (typeof DOMException !== "undefined" && error instanceof DOMException);
}

/** `error` as telemetry records it; `personal` is the request or resource whose personal data must go. */
export function describeError(error: unknown, personal?: object): DescribedError {
	const secrets = personal && new KnownSecrets(personal as Record<string, unknown>, { personal: true });
	const message = messageIsKnown(error)
		? telemetryMessage(error, secrets).slice(0, MAX_MESSAGE_LENGTH)
		: MESSAGE_NOT_RECORDED;
	return { type: errorType(error), message };
}
