import type { Span } from "@opentelemetry/api";
import { GatewayError } from "../errors/gateway-error.js";
import { type KnownSecrets, telemetryMessage } from "../internal/redact.js";
import type { OpenTelemetry } from "./api.js";
import { ATTRIBUTES } from "./names.js";

/** Longest exception message a span keeps. */
const MAX_MESSAGE_LENGTH = 1000;
/** What stands for the message of an error the SDK did not write. */
export const MESSAGE_NOT_RECORDED = "(not recorded: the message of an error thrown outside the SDK)";

/**
 * Whether the SDK (or the runtime) wrote the error's message, so that redaction knows its shape: the SDK's
 * errors, and the runtime's DOMExceptions (a timeout, an abort). An error your code threw (a callback's,
 * a signal's reason) may say anything about anyone: only its class name is recorded.
 */
function messageIsKnown(error: unknown): boolean {
	return error instanceof GatewayError || (typeof DOMException !== "undefined" && error instanceof DOMException);
}

/** An error's class name, as `error.type` and `exception.type` give it (`_OTHER` for a thrown non-error). */
export function errorType(error: unknown): string {
	const name = typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined;
	return typeof name === "string" && name !== "" ? name : "_OTHER";
}

/**
 * Marks the span failed with `error`: status ERROR, `error.type`, and an `exception` event with the class
 * name and the message as telemetry shows it (redacted, without the gateway's words; only for messages the
 * SDK or the runtime wrote). Never the stack or the cause: they may hold what the message had removed.
 */
export function recordError(api: OpenTelemetry, span: Span, error: unknown, secrets?: KnownSecrets): void {
	const type = errorType(error);
	const message = messageIsKnown(error)
		? telemetryMessage(error, secrets).slice(0, MAX_MESSAGE_LENGTH)
		: MESSAGE_NOT_RECORDED;
	span.setAttribute(ATTRIBUTES.errorType, type);
	span.recordException({ name: type, message });
	span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}
