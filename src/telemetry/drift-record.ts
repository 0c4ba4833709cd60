import type { Counter, Meter } from "@opentelemetry/api";
import type { OpenTelemetry } from "./api.js";
import type { DriftReport } from "./drift.js";
import { ATTRIBUTES, METRICS } from "./names.js";

/** The drift counter, shared by every component that receives signed messages. */
export function driftCounter(meter: Meter, api: OpenTelemetry): Counter {
	return meter.createCounter(METRICS.driftReports, {
		unit: "{report}",
		valueType: api.ValueType.INT,
		description: "Signed messages that carry a status, status code or field the SDK does not know (once per kind).",
	});
}

/** A drift report as span event and counter attributes. */
export function driftAttributes(report: DriftReport): Record<string, string> {
	return {
		[ATTRIBUTES.driftType]: report.type,
		[ATTRIBUTES.driftSource]: report.source,
		[ATTRIBUTES.driftValue]: report.value,
	};
}
