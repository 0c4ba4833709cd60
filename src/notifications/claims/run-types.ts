import type { ReplayRefusedError } from "../../errors/replay-refused-error.js";
import type { SignVersion } from "../../signing/seal.js";
import type { NotificationEvent } from "../message/verify.js";

// What a claimed run's callback learns, and the failed events a store keeps, as the handler's
// `failedEvents` shows them.

/** What your callback learns besides the resource. */
export interface NotificationContext {
	/** Event identity, already de-duplicated by the store. */
	eventId: string;
	/** The signing version the IPN arrived in (reconciled: the version the query's response was verified in). */
	signVersion: SignVersion;
	/**
	 * Aborts when the handler stops waiting for this run: after `callbackTimeoutMs`, or when the
	 * claim's `leaseMs` ends if that comes first. The gateway has then been told to retry, and a
	 * later delivery may run your callback again: stop, and pass the signal on to your database
	 * and HTTP calls. Its `reason` is a `TimeoutError` DOMException.
	 */
	signal: AbortSignal;
	/** `true` when the event came from `createReconciler` (a verified query) rather than an IPN; absent for IPNs. */
	reconciled?: true;
}

/**
 * Failed events, kept by the store for every instance: an event whose callback threw or timed out is
 * recorded with the gateway's signed message as the delivery carried it, the attempts across instances
 * and the last error; a successful run (a replay, a later gateway delivery, a reconciliation) deletes the
 * record. Reading or replaying a record verifies its signed message again, as a delivery is verified.
 * On a store without the failed-event methods (a custom store) each call rejects with a
 * `ConfigurationError` naming the store; deliveries work as before.
 */
export interface FailedEvents {
	/** One page of failed events, in the order they first failed. */
	list(options?: FailedEventListOptions): Promise<FailedEventPage>;
	/** The event's record, or undefined when it is not kept as failed. */
	get(eventId: string): Promise<FailedEvent | undefined>;
	/**
	 * Verifies the recorded signed message again with the handler's gateway keys, exactly as a delivery is
	 * verified, and runs the callback with the event it holds, through the same claim as a delivery: a
	 * replay racing a gateway delivery of the event, or another replay, still runs it once (the other gets
	 * `in_progress`, or `already_processed` once it is done). A success deletes the record; a failure
	 * counts one more attempt. The callback's time limit is `callbackTimeoutMs`, as for a delivery. A
	 * record that does not verify (edited or forged in the store, signed with a key no longer configured,
	 * kept without a signed message) runs nothing: `refused`, reported to `onError` with `replay: true`.
	 */
	retry(eventId: string): Promise<FailedEventRetry>;
	/** Deletes the event's record without running it; true when there was one. */
	discard(eventId: string): Promise<boolean>;
}

/** Which page `failedEvents.list` returns. */
export interface FailedEventListOptions {
	/** The most events on the page, from 1 to 1000. @default 100 */
	limit?: number | undefined;
	/** The `next` of the page before; absent for the first page. @default undefined */
	after?: string | undefined;
}

/** One page of failed events. */
export interface FailedEventPage {
	/** The events, in the order they first failed. */
	events: FailedEvent[];
	/** Pass it as `after` for the next page; undefined on the last page. */
	next: string | undefined;
}

/** An event whose callback failed and has not succeeded since. */
export interface FailedEvent {
	/** The event's identity, as the callback's context had it. */
	eventId: string;
	/**
	 * The event, verified again from the recorded signed message when read (signature, schema and event
	 * id); undefined when the record does not verify (`refusal` says why; `retry` refuses it).
	 */
	event: NotificationEvent | undefined;
	/** Why the record does not verify, and `retry` would refuse it; absent when it verifies. */
	refusal?: ReplayRefusedError;
	/** Failed runs across every instance: gateway deliveries, reconciliations and replays. */
	attempts: number;
	/** The last failure's error: its class name and message, redacted (never a stack). */
	lastError: string;
	/** When it first failed, by the store's clock. */
	firstFailedAt: Date;
	/** When it last failed, by the store's clock. */
	lastFailedAt: Date;
}

/** How a replay (`failedEvents.retry`) ended. */
export interface FailedEventRetry {
	/** The event replayed. */
	eventId: string;
	/**
	 * - `processed`: the callback resolved; the record is deleted;
	 * - `already_processed`: the event was processed meanwhile (a gateway delivery): nothing ran;
	 * - `in_progress`: another run holds the event's claim right now: nothing ran;
	 * - `failed`: the callback threw or timed out (one more attempt), or the store failed;
	 * - `refused`: the record does not verify (`error` is a `ReplayRefusedError` saying why): nothing ran,
	 *   and nothing will; the record stays until it is discarded or the event succeeds otherwise;
	 * - `not_found`: no failed event of this id is kept: nothing ran.
	 */
	result: "processed" | "already_processed" | "in_progress" | "failed" | "refused" | "not_found";
	/** Failed runs so far, this one included, when it failed and was recorded. */
	attempts?: number;
	/**
	 * Why it failed; for `processed`, the store's failure to mark the event done (then a later delivery
	 * could run it again).
	 */
	error?: unknown;
}
