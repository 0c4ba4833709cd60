import type { Attributes, Span } from "@opentelemetry/api";
import type { StepWatcher } from "../notifications/claims/claimed-event.js";
import type { ReplayStart, ReplayWatch } from "../notifications/claims/replay-watch.js";
import type { FailedEventRetry } from "../notifications/claims/run-types.js";
import type { NotificationEvent } from "../notifications/message/verify.js";
import { ActiveTelemetry, type OpenTelemetryOptions } from "./active.js";
import { describeError } from "./described.js";
import { ATTRIBUTES } from "./names.js";
import { recordError } from "./span-error.js";
import { defineEventInstruments, type EventInstruments, RunSteps } from "./steps.js";
import { eventAttributes } from "./values.js";

/** A replay's span name. */
const OPERATION = "ipn.replay";

/** The replays' subscriber: a span, its step events and a metric point per `failedEvents.retry`. */
export function recordReplays(providers: OpenTelemetryOptions): (start: ReplayStart) => ReplayWatch {
	const active = new ActiveTelemetry(providers, defineEventInstruments);
	return () => new RecordedReplay(active);
}

class RecordedReplay implements ReplayWatch {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #point: Attributes = {};
	#event: NotificationEvent | undefined;
	#steps: RunSteps | undefined;

	/** @throws what the tracer throws: the replay then records nothing. */
	constructor(active: ActiveTelemetry<EventInstruments>) {
		this.#active = active;
		this.#span = active.tracer.startSpan(OPERATION, { attributes: { [ATTRIBUTES.operation]: OPERATION } });
	}

	get steps(): StepWatcher | undefined {
		return this.#steps?.watch;
	}

	read(event: NotificationEvent): void {
		this.#event = event;
		this.#point[ATTRIBUTES.eventKind] = event.type;
		this.#steps = new RunSteps(this.#active, "replay", this.#span, { ...this.#point });
	}

	inCallback<T>(run: () => T): T {
		return this.#steps === undefined ? run() : this.#steps.inCallback(run);
	}

	finished(retry: FailedEventRetry): void {
		try {
			const event = this.#event;
			const resource =
				event === undefined ? undefined : event.type === "transaction" ? event.transaction : event.refund;
			const described = retry.error === undefined ? undefined : describeError(retry.error, resource);
			const point: Attributes = { ...this.#point, [ATTRIBUTES.outcome]: retry.result };
			if (described !== undefined) point[ATTRIBUTES.errorType] = described.type;
			if (this.#span.isRecording()) {
				const attributes: Attributes = { ...(event && eventAttributes(event)), ...point };
				if (retry.attempts !== undefined) attributes[ATTRIBUTES.attempts] = retry.attempts;
				this.#span.setAttributes(attributes);
				if (described !== undefined && retry.result === "failed") recordError(this.#span, described);
			}
			this.#span.end();
			this.#active.instruments().replays.add(1, point);
		} catch {
			// A tracer or meter that throws must not change what the replay returns.
		}
	}
}
