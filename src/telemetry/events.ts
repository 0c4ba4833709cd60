import type { Attributes, Context, Counter, Histogram, Meter, Span } from "@opentelemetry/api";
// The IPN handler's and the reconciler's recording code: loaded with @opentelemetry/api, never without it.
import type { RunStep, StepWatcher } from "../notifications/claimed-event.js";
import type { ActiveTelemetry } from "./active.js";
import type { OpenTelemetry } from "./api.js";
import type { TelemetryRedaction } from "./described.js";
import { driftCounter } from "./drift-record.js";
import { ATTRIBUTES, DURATION_BUCKETS, METRICS } from "./names.js";
import { recordError } from "./span-error.js";

/** Who runs a claimed event: the IPN handler (`ipn`) or the reconciler (`reconcile`); it prefixes the step spans. */
export type EventSource = "ipn" | "reconcile";

/** The metrics of the IPN handler and the reconciler. */
export interface EventInstruments {
	deliveries: Counter;
	reconciled: Counter;
	callbackDuration: Histogram;
	claimDuration: Histogram;
	drift: Counter;
}

export function defineEventInstruments(meter: Meter, api: OpenTelemetry): EventInstruments {
	const seconds = (description: string) => ({
		unit: "s",
		description,
		advice: { explicitBucketBoundaries: DURATION_BUCKETS },
	});
	return {
		deliveries: meter.createCounter(METRICS.ipnDeliveries, {
			unit: "{delivery}",
			valueType: api.ValueType.INT,
			description: "IPN deliveries, by outcome.",
		}),
		reconciled: meter.createCounter(METRICS.reconciledEvents, {
			unit: "{event}",
			valueType: api.ValueType.INT,
			description: "Transactions and refunds reconciled, by result.",
		}),
		callbackDuration: meter.createHistogram(
			METRICS.callbackDuration,
			seconds("How long onTransaction / onRefund ran, until it settled or the SDK stopped waiting."),
		),
		claimDuration: meter.createHistogram(
			METRICS.claimDuration,
			seconds("How long the notification store took to answer a claim."),
		),
		drift: driftCounter(meter, api),
	};
}

/** The claim's answer as `merchant_gateway.claim.result`: the store contract's three, or `invalid`. */
function claimResult(answer: unknown): string {
	return answer === "claimed" || answer === "processed" || answer === "in_progress" ? answer : "invalid";
}

/**
 * The steps of one run as child spans of `parent` (`ipn.claim`, `ipn.callback`, `ipn.confirm`, `ipn.release`),
 * with the claim's and the callback's durations on their histograms. The callback's span is active while
 * the merchant's callback runs (`inCallback`), so that its own spans nest under it.
 */
export class RunSteps {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #source: EventSource;
	readonly #parent: Context;
	readonly #attributes: Attributes;
	readonly #redaction: TelemetryRedaction;
	readonly #personal: () => object | undefined;
	#callback: Context | undefined;

	/**
	 * @param attributes the event's, on every step span and histogram point (its kind).
	 * @param personal the resource whose personal data stays out of exception messages.
	 */
	constructor(
		active: ActiveTelemetry<EventInstruments>,
		source: EventSource,
		parent: Span,
		attributes: Attributes,
		redaction: TelemetryRedaction,
		personal: () => object | undefined,
	) {
		this.#active = active;
		this.#source = source;
		this.#parent = active.api.trace.setSpan(active.api.context.active(), parent);
		this.#attributes = attributes;
		this.#redaction = redaction;
		this.#personal = personal;
	}

	/** The watcher the event runner tells of each step. */
	readonly watch: StepWatcher = (step) => {
		const { api, tracer } = this.#active;
		const startedAt = performance.now();
		const span = tracer.startSpan(`${this.#source}.${step}`, { attributes: this.#attributes }, this.#parent);
		if (step === "callback") this.#callback = api.trace.setSpan(this.#parent, span);
		return (ended) => {
			try {
				this.#ended(step, span, startedAt, ended);
			} catch {
				// A tracer or meter that throws must not change what the handler does.
			}
		};
	};

	/** Runs the merchant's callback with its step span active. */
	inCallback<T>(run: () => T): T {
		const context = this.#callback;
		return context === undefined ? run() : this.#active.api.context.with(context, run);
	}

	#ended(step: RunStep, span: Span, startedAt: number, ended: { error?: unknown; answer?: unknown }): void {
		const seconds = (performance.now() - startedAt) / 1000;
		const { error } = ended;
		const point: Attributes = { ...this.#attributes, [ATTRIBUTES.source]: this.#source };
		if (step === "claim" && error === undefined) {
			const result = claimResult(ended.answer);
			span.setAttribute(ATTRIBUTES.claimResult, result);
			point[ATTRIBUTES.claimResult] = result;
		}
		if (error !== undefined) {
			const described = this.#redaction.error(error, this.#personal());
			point[ATTRIBUTES.errorType] = described.type;
			if (span.isRecording()) recordError(this.#active.api, span, described);
		}
		span.end();
		const instruments = this.#active.instruments();
		if (step === "claim") instruments.claimDuration.record(seconds, point);
		if (step === "callback") instruments.callbackDuration.record(seconds, point);
	}
}
