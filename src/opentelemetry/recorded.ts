import { type Context, type Counter, type Span, type SpanOptions, SpanStatusCode } from "@opentelemetry/api";
import type { DriftReport } from "../schemas/drift-reports.js";
import type { ActiveTelemetry } from "./active.js";
import type { DescribedError } from "./described.js";
import { ATTRIBUTES, EVENTS } from "./names.js";
import { driftValue } from "./values.js";

/** One lifecycle's span (a client call's, a delivery's, a replay's, a reconciliation's) and its component's metrics. */
export abstract class RecordedSpan<Instruments extends { drift: Counter }> {
	protected readonly active: ActiveTelemetry<Instruments>;
	protected readonly span: Span;
	/** Whether the span records (a sampler may drop it): what only the span would show is then not made. */
	protected readonly recording: boolean;

	/** @throws what the tracer throws: the lifecycle is then not recorded. */
	constructor(active: ActiveTelemetry<Instruments>, name: string, options: SpanOptions, parent?: Context) {
		this.active = active;
		this.span = active.tracer.startSpan(name, options, parent);
		this.recording = this.span.isRecording();
	}

	/**
	 * Marks the span failed: status ERROR, `error.type`, and an `exception` event with the class name and the
	 * message as telemetry shows it (described.ts). Never the stack or the cause: they may hold what the
	 * message had removed.
	 */
	protected recordError(error: DescribedError): void {
		this.span.setAttribute(ATTRIBUTES.errorType, error.type);
		this.span.recordException({ name: error.type, message: error.message });
		this.span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
	}

	/**
	 * A drift report as an event on the span of the message that carried it (when the span records) and a point on
	 * the drift counter (the instruments may throw, as the SDK's calls may: the report is then lost, never the
	 * call or the delivery that carried it).
	 */
	drift(report: DriftReport): void {
		const attributes = {
			[ATTRIBUTES.driftType]: report.type,
			[ATTRIBUTES.driftSource]: report.source,
			[ATTRIBUTES.driftValue]: driftValue(report),
		};
		try {
			if (this.recording) this.span.addEvent(EVENTS.drift, attributes);
			this.active.instruments().drift.add(1, attributes);
		} catch {
			// A tracer or meter that throws must not change what the SDK does.
		}
	}
}
