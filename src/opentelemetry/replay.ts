import type { Attributes } from "@opentelemetry/api";
import type { ReplayWatch } from "../notifications/claims/replay-watch.js";
import type { FailedEventRetry } from "../notifications/claims/run-types.js";
import type { NotificationEvent } from "../notifications/message/verify.js";
import type { ActiveTelemetry } from "./active.js";
import { describeError } from "./described.js";
import type { EventInstruments } from "./instruments.js";
import { ATTRIBUTES } from "./names.js";
import { RecordedRun } from "./run.js";
import { eventAttributes } from "./values.js";

/** A replay's span name. */
const OPERATION = "ipn.replay";

/** A `failedEvents.retry` recorded: a span, its step events and a metric point. */
export class RecordedReplay extends RecordedRun implements ReplayWatch {
	#event: NotificationEvent | undefined;

	/** @throws what the tracer throws: the replay then records nothing. */
	constructor(active: ActiveTelemetry<EventInstruments>) {
		super(active, "replay", OPERATION, { attributes: { [ATTRIBUTES.operation]: OPERATION } });
	}

	read(event: NotificationEvent): void {
		this.#event = event;
		this.recordSteps(event.type);
	}

	finished(retry: FailedEventRetry): void {
		try {
			const event = this.#event;
			const resource =
				event === undefined ? undefined : event.type === "transaction" ? event.transaction : event.refund;
			const described = retry.error === undefined ? undefined : describeError(retry.error, resource);
			const point = this.point(retry.result, described);
			if (this.recording) {
				const attributes: Attributes = { ...(event && eventAttributes(event)), ...point };
				if (retry.attempts !== undefined) attributes[ATTRIBUTES.attempts] = retry.attempts;
				this.span.setAttributes(attributes);
				if (described !== undefined && retry.result === "failed") this.recordError(described);
			}
			this.end("replays", point);
		} catch {
			// A tracer or meter that throws must not change what the replay returns.
		}
	}
}
