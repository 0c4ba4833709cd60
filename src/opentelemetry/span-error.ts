import { type Span, SpanStatusCode } from "@opentelemetry/api";
import type { DescribedError } from "./described.js";
import { ATTRIBUTES } from "./names.js";

/**
 * Marks the span failed: status ERROR, `error.type`, and an `exception` event with the class name and the
 * message as telemetry shows it (described.ts). Never the stack or the cause: they may hold what the
 * message had removed.
 */
export function recordError(span: Span, error: DescribedError): void {
	span.setAttribute(ATTRIBUTES.errorType, error.type);
	span.recordException({ name: error.type, message: error.message });
	span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
}
