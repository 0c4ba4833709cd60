import type { Span } from "@opentelemetry/api";
import { type KnownSecrets, telemetryMessage } from "../internal/redact.js";
import type { OpenTelemetry } from "./api.js";
import { ATTRIBUTES } from "./names.js";

/** Longest exception message a span keeps. */
const MAX_MESSAGE_LENGTH = 1000;

/** An error's class name, as `error.type` and `exception.type` give it (`_OTHER` for a thrown non-error). */
export function errorType(error: unknown): string {
	const name = typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined;
	return typeof name === "string" && name !== "" ? name : "_OTHER";
}

/**
 * Marks the span failed with `error`: status ERROR, `error.type`, and an `exception` event with the class
 * name and the message as telemetry shows it (redacted, without the gateway's words). Never the stack or
 * the cause: they may hold what the message had removed.
 */
export function recordError(api: OpenTelemetry, span: Span, error: unknown, secrets?: KnownSecrets): void {
	const type = errorType(error);
	const message = telemetryMessage(error, secrets).slice(0, MAX_MESSAGE_LENGTH);
	span.setAttribute(ATTRIBUTES.errorType, type);
	span.recordException({ name: type, message });
	span.setStatus({ code: api.SpanStatusCode.ERROR, message });
}
