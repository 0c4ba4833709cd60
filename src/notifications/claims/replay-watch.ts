import { Seam } from "../../internal/seam.js";
import type { NotificationEvent } from "../message/verify.js";
import type { StepWatcher } from "./claimed-event.js";
import type { FailedEventRetry } from "./run-types.js";

// A replay's lifecycle (`failedEvents.retry`), as the failed events tell it: the seam an instrumentation
// (merchant-gateway/opentelemetry) subscribes to.

/** A replay as it starts: the event id it was asked for (any string the caller passed). */
export interface ReplayStart {
	readonly eventId: string;
}

/** One replay's lifecycle, in this order. */
export interface ReplayWatch {
	/** The recorded event, read and checked again: the callback runs with it. */
	read(event: NotificationEvent): void;
	/** Told of the run's steps (claim, callback, confirm or release), once read; none when unwatched. */
	readonly steps: StepWatcher | undefined;
	/** Runs the merchant's callback (so that an instrumentation can make its span active around it). */
	inCallback<T>(run: () => T): T;
	/** What `retry` returns. */
	finished(retry: FailedEventRetry): void;
}

/** The watch of a replay nobody watches. */
export const UNWATCHED_REPLAY: ReplayWatch = {
	read: () => undefined,
	steps: undefined,
	inCallback: (run) => run(),
	finished: () => undefined,
};

/** The replay's seam: what an instrumentation subscribes to. */
export const replays = new Seam<ReplayStart, ReplayWatch>("ipn.replay");
