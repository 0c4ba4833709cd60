import type { Counter, Meter, Span } from "@opentelemetry/api";
import type { DriftReport } from "../schemas/drift-reports.js";
import { counter } from "./active.js";
import { ATTRIBUTES, EVENTS, METRICS } from "./names.js";
import { driftValue } from "./values.js";

/** The drift counter, shared by every component that receives signed messages. */
export function driftCounter(meter: Meter): Counter {
	const description =
		"Signed messages that carry a status, status code or field the SDK does not know (once per kind).";
	return counter(meter, METRICS.driftReports, "{report}", description);
}

/** A drift report as span event and counter attributes. */
export function driftAttributes(report: DriftReport): Record<string, string> {
	return {
		[ATTRIBUTES.driftType]: report.type,
		[ATTRIBUTES.driftSource]: report.source,
		[ATTRIBUTES.driftValue]: driftValue(report),
	};
}

/**
 * A drift report as an event on the span of the message that carried it (when the span records) and a point on
 * the drift counter, read when needed (`counter` may throw, as the SDK's calls may: the report is then lost,
 * never the call or the delivery that carried it).
 */
export function recordDrift(span: Span, counter: () => Counter, report: DriftReport): void {
	const attributes = driftAttributes(report);
	try {
		if (span.isRecording()) span.addEvent(EVENTS.drift, attributes);
		counter().add(1, attributes);
	} catch {
		// A tracer or meter that throws must not change what the SDK does.
	}
}
