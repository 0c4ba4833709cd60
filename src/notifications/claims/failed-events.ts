import * as z from "zod/mini";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { ReplayRefusedError } from "../../errors/replay-refused-error.js";
import { integer, parseOptions } from "../../internal/options.js";
import { errorName } from "../../internal/seam.js";
import { lazySchema } from "../../schemas/lazy.js";
import type { NotificationEvent, VerifyNotificationOptions } from "../message/verify.js";
import { bounded, type EventRunner, type RunOutcome, runEvent } from "./claimed-event.js";
import { replayedEvent } from "./failed-event-record.js";
import { type ReplayWatch, replays, UNWATCHED_REPLAY } from "./replay-watch.js";
import type { FailedEvent, FailedEventRetry, FailedEvents } from "./run-types.js";
import type { FailedEventRecord, FailedEventStore } from "./store.js";

const listOptions = lazySchema(() =>
	z.object({
		limit: integer(1, 1000, 100),
		after: z.optional(z.string({ error: "must be the next of a page before" })),
	}),
);

/** What `failedEvents` works with: the handler's store, its runner and how an event becomes a callback. */
export interface FailedEventsContext {
	/** The handler's runner: its store, and how a replay is run through the same claim as a delivery. */
	runner: EventRunner;
	/** How the handler verifies a delivery: a record's signed message is verified the same way. */
	verifyOptions: VerifyNotificationOptions;
	/** The callback for `event`, as a delivery runs it, inside the replay's `inCallback`. */
	callbackFor(event: NotificationEvent, watch: Pick<ReplayWatch, "inCallback">): (signal: AbortSignal) => unknown;
	/** Told how a replay ended after `retry` stopped waiting. */
	onLate(outcome: RunOutcome): void;
	/** Told of a record `retry` refused, as a refused delivery is reported. */
	onRefused(error: ReplayRefusedError, eventId: string): void;
	/** Where to say that an instrumentation failed to start. */
	warn(message: string): void;
}

function checkedEventId(eventId: unknown): string {
	if (typeof eventId === "string") return eventId;
	throw new ConfigurationError([{ field: "eventId", message: "must be a string" }], "arguments");
}

/** A record as an event: verified again from its signed message, or with the refusal a replay would meet. */
function toEvent(record: FailedEventRecord, verifyOptions: VerifyNotificationOptions): FailedEvent {
	let event: NotificationEvent | undefined;
	let refusal: ReplayRefusedError | undefined;
	try {
		event = replayedEvent(record.eventId, record.message, verifyOptions);
	} catch (error) {
		if (!(error instanceof ReplayRefusedError)) throw error;
		refusal = error;
	}
	return {
		eventId: record.eventId,
		event,
		...(refusal === undefined ? {} : { refusal }),
		attempts: record.attempts,
		lastError: record.error,
		firstFailedAt: new Date(record.firstFailedAt),
		lastFailedAt: new Date(record.lastFailedAt),
	};
}

/** A replay's result from its run's outcome. */
function retried(outcome: RunOutcome): FailedEventRetry {
	const { eventId } = outcome;
	switch (outcome.kind) {
		case "processed":
			return { eventId, result: "processed", ...(outcome.problem === undefined ? {} : { error: outcome.problem }) };
		case "duplicate":
			return { eventId, result: "already_processed" };
		case "held":
			return { eventId, result: "in_progress" };
		case "store_unavailable":
			return { eventId, result: "failed", error: outcome.error };
		case "callback_failed":
		case "timed_out":
			return outcome.attempts === undefined
				? { eventId, result: "failed", error: outcome.error }
				: { eventId, result: "failed", error: outcome.error, attempts: outcome.attempts };
	}
}

/** The handler's `failedEvents` over its store. */
export function createFailedEvents(context: FailedEventsContext): FailedEvents {
	const { runner, verifyOptions, callbackFor, onLate, onRefused, warn } = context;
	const { failures } = runner;

	function kept() {
		if (failures !== undefined) return failures;
		const message =
			`keeps no failed events: ${runner.name.replace(/^The /, "the ")} has no recordFailure, failedEvent, ` +
			"listFailedEvents and discardFailedEvent (createMemoryStore, createRedisStore and createPostgresStore have them)";
		throw new ConfigurationError([{ field: "store", message }], "notification handler options");
	}

	async function replay(store: FailedEventStore, id: string, watch: ReplayWatch): Promise<FailedEventRetry> {
		let record: FailedEventRecord | undefined;
		let event: NotificationEvent;
		try {
			record = await bounded(runner, "failed-event read", id, () => store.failedEvent(id));
			if (record === undefined) return { eventId: id, result: "not_found" };
			event = replayedEvent(id, record.message, verifyOptions);
		} catch (error) {
			if (!(error instanceof ReplayRefusedError)) return { eventId: id, result: "failed", error };
			onRefused(error, id);
			return { eventId: id, result: "refused", error };
		}
		watch.read(event);
		const { message } = record;
		return retried(await runEvent(runner, id, callbackFor(event, watch), onLate, () => message, watch.steps));
	}

	return {
		async list(options = {}) {
			const store = kept();
			const { limit, after } = parseOptions(listOptions, options, "failed-event list options");
			const page = await bounded(runner, "list", "failed events", () => store.listFailedEvents({ limit, after }));
			return { events: page.records.map((record) => toEvent(record, verifyOptions)), next: page.next };
		},
		async get(eventId) {
			const store = kept();
			const id = checkedEventId(eventId);
			const record = await bounded(runner, "failed-event read", id, () => store.failedEvent(id));
			return record === undefined ? undefined : toEvent(record, verifyOptions);
		},
		async retry(eventId) {
			const store = kept();
			const id = checkedEventId(eventId);
			const failed = (error: unknown) =>
				warn(`An instrumentation failed to start; the replay goes on without it: ${errorName(error)}`);
			const watch = replays.start({ eventId: id }, failed) ?? UNWATCHED_REPLAY;
			const result = await replay(store, id, watch);
			watch.finished(result);
			return result;
		},
		async discard(eventId) {
			const store = kept();
			const id = checkedEventId(eventId);
			return await bounded(runner, "failed-event discard", id, () => store.discardFailedEvent(id));
		},
	};
}
