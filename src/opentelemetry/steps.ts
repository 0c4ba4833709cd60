import {
	type Attributes,
	type Counter,
	context,
	type Histogram,
	type Meter,
	type Span,
	trace,
} from "@opentelemetry/api";
import type { RunStep, StepWatcher } from "../notifications/claims/claimed-event.js";
import { type ActiveTelemetry, counter, durations } from "./active.js";
import { errorType } from "./described.js";
import { driftCounter } from "./drift-record.js";
import { ATTRIBUTES, METRICS } from "./names.js";

/** Who runs a claimed event: the IPN handler (`ipn`), a replay (`replay`) or the reconciler (`reconcile`). */
export type EventSource = "ipn" | "replay" | "reconcile";

/** The metrics of the IPN handler and the reconciler. */
export interface EventInstruments {
	deliveries: Counter;
	reconciled: Counter;
	replays: Counter;
	callbackDuration: Histogram;
	claimDuration: Histogram;
	drift: Counter;
}

export function defineEventInstruments(meter: Meter): EventInstruments {
	return {
		deliveries: counter(meter, METRICS.ipnDeliveries, "{delivery}", "IPN deliveries, by outcome."),
		reconciled: counter(meter, METRICS.reconciledEvents, "{event}", "Transactions and refunds reconciled, by result."),
		replays: counter(meter, METRICS.replays, "{replay}", "Replays of failed events (failedEvents.retry), by result."),
		callbackDuration: durations(
			meter,
			METRICS.callbackDuration,
			"How long onTransaction / onRefund ran, until it settled or the SDK stopped waiting.",
		),
		claimDuration: durations(meter, METRICS.claimDuration, "How long the notification store took to answer a claim."),
		drift: driftCounter(meter),
	};
}

/** The claim's answer as `merchant_gateway.claim.result`: the store contract's three, or `invalid`. */
function claimResult(answer: unknown): string {
	return answer === "claimed" || answer === "processed" || answer === "in_progress" ? answer : "invalid";
}

/**
 * The steps of one run as events on `span` (`merchant_gateway.claim`, `.callback`, `.confirm`, `.release`),
 * each with its duration, and the claim's and the callback's durations on their histograms. Events, not
 * child spans: a span costs the SDK several times what an event does, on every delivery. `span` is active
 * while the merchant's callback runs (`inCallback`), so that its own spans nest under it.
 */
export class RunSteps {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #source: EventSource;
	readonly #span: Span;
	readonly #recording: boolean;
	readonly #attributes: Attributes;

	/**
	 * @param attributes the event's, on every histogram point (its kind).
	 */
	constructor(active: ActiveTelemetry<EventInstruments>, source: EventSource, span: Span, attributes: Attributes) {
		this.#active = active;
		this.#source = source;
		this.#span = span;
		this.#recording = span.isRecording();
		this.#attributes = attributes;
	}

	/** The watcher the event runner tells of each step. */
	readonly watch: StepWatcher = (step) => {
		const startedAt = performance.now();
		return (ended) => {
			try {
				this.#ended(step, startedAt, ended);
			} catch {
				// A tracer or meter that throws must not change what the handler does.
			}
		};
	};

	/** Runs the merchant's callback with the run's span active. */
	inCallback<T>(run: () => T): T {
		return context.with(trace.setSpan(context.active(), this.#span), run);
	}

	#ended(step: RunStep, startedAt: number, ended: { error?: unknown; answer?: unknown }): void {
		const ms = performance.now() - startedAt;
		const { error } = ended;
		const point: Attributes = { ...this.#attributes, [ATTRIBUTES.source]: this.#source };
		const event: Attributes = { [ATTRIBUTES.duration]: Math.round(ms * 1000) / 1000 };
		if (step === "claim" && error === undefined) {
			const result = claimResult(ended.answer);
			event[ATTRIBUTES.claimResult] = result;
			point[ATTRIBUTES.claimResult] = result;
		}
		if (error !== undefined) {
			const type = errorType(error);
			point[ATTRIBUTES.errorType] = type;
			event[ATTRIBUTES.errorType] = type;
		}
		if (this.#recording) this.#span.addEvent(`merchant_gateway.${step}`, event);
		const instruments = this.#active.instruments();
		if (step === "claim") instruments.claimDuration.record(ms / 1000, point);
		if (step === "callback") instruments.callbackDuration.record(ms / 1000, point);
	}
}
