import { type Attributes, type Context, context, type SpanOptions, trace } from "@opentelemetry/api";
import type { RunStep, StepWatcher } from "../notifications/claims/claimed-event.js";
import type { ActiveTelemetry } from "./active.js";
import { type DescribedError, errorType } from "./described.js";
import type { EventInstruments } from "./instruments.js";
import { ATTRIBUTES } from "./names.js";
import { RecordedSpan } from "./recorded.js";

/** Who runs a claimed event: the IPN handler (`ipn`), a replay (`replay`) or the reconciler (`reconcile`). */
type EventSource = "ipn" | "replay" | "reconcile";

/** The claim's answer as `merchant_gateway.claim.result`: the store contract's three, or `invalid`. */
function claimResult(answer: unknown): string {
	return answer === "claimed" || answer === "processed" || answer === "in_progress" ? answer : "invalid";
}

/**
 * A run of a claimed event recorded: a delivery's, a replay's or a reconciled id's. The run's steps are events
 * on its span (`merchant_gateway.claim`, `.callback`, `.confirm`, `.release`), each with its duration, and the
 * claim's and the callback's durations go on their histograms. Events, not child spans: a span costs the SDK
 * several times what an event does, on every delivery. The span is active while the merchant's callback runs
 * (`inCallback`), so that its own spans nest under it.
 */
export abstract class RecordedRun extends RecordedSpan<EventInstruments> {
	readonly #source: EventSource;
	/** The event's kind, once known: on every metric point of the run. */
	protected kind: string | undefined;
	/** The attributes of the step histograms' points (the event's kind and the source), once the steps are recorded. */
	#stepPoint: Attributes | undefined;
	/** The watcher the event runner tells of each step, once the event is known; none before. */
	steps: StepWatcher | undefined;

	constructor(
		active: ActiveTelemetry<EventInstruments>,
		source: EventSource,
		name: string,
		options: SpanOptions,
		parent?: Context,
	) {
		super(active, name, options, parent);
		this.#source = source;
	}

	/** The event of `kind` is known: the run's steps are recorded from now on. */
	protected recordSteps(kind: string): void {
		this.kind = kind;
		this.#stepPoint = { [ATTRIBUTES.eventKind]: kind, [ATTRIBUTES.source]: this.#source };
		this.steps = (step) => {
			const startedAt = performance.now();
			return (ended) => {
				try {
					this.stepEnded(step, startedAt, ended.error, ended.answer);
				} catch {
					// A tracer or meter that throws must not change what the handler does.
				}
			};
		};
	}

	/** Runs the merchant's callback with the run's span active. */
	inCallback<T>(run: () => T): T {
		return this.steps === undefined ? run() : context.with(trace.setSpan(context.active(), this.span), run);
	}

	/** A step's event on the span (when it records), and the claim's or the callback's duration on its histogram. */
	protected stepEnded(step: RunStep | "verify", startedAt: number, error: unknown, answer?: unknown): void {
		const ms = performance.now() - startedAt;
		const type = error === undefined ? undefined : errorType(error);
		const result = step === "claim" && error === undefined ? claimResult(answer) : undefined;
		if (this.recording) {
			const event: Attributes = { [ATTRIBUTES.duration]: Math.round(ms * 1000) / 1000 };
			if (result !== undefined) event[ATTRIBUTES.claimResult] = result;
			if (type !== undefined) event[ATTRIBUTES.errorType] = type;
			this.span.addEvent(`merchant_gateway.${step}`, event);
		}
		if (step !== "claim" && step !== "callback") return;
		const point: Attributes = { ...this.#stepPoint };
		if (result !== undefined) point[ATTRIBUTES.claimResult] = result;
		if (type !== undefined) point[ATTRIBUTES.errorType] = type;
		const instruments = this.active.instruments();
		(step === "claim" ? instruments.claimDuration : instruments.callbackDuration).record(ms / 1000, point);
	}

	/** The run's metric point: the event's kind (once known), the outcome, and the error's type when it failed. */
	protected point(outcome: string, described: DescribedError | undefined): Attributes {
		const point: Attributes = this.kind === undefined ? {} : { [ATTRIBUTES.eventKind]: this.kind };
		point[ATTRIBUTES.outcome] = outcome;
		if (described !== undefined) point[ATTRIBUTES.errorType] = described.type;
		return point;
	}

	/** Ends the span, and adds the run's point to its counter. */
	protected end(counter: "deliveries" | "replays" | "reconciled", point: Attributes): void {
		this.span.end();
		this.active.instruments()[counter].add(1, point);
	}
}
