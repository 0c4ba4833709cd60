import * as z from "zod/mini";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { requiredOr } from "../../internal/options.js";

/**
 * What `claim` found:
 * - `"claimed"`: the caller now holds the lease and must `confirm` or `release`;
 * - `"processed"`: the event was confirmed before (a duplicate delivery);
 * - `"in_progress"`: someone else holds an unexpired lease.
 */
export type ClaimResult = "claimed" | "processed" | "in_progress";

/**
 * What `confirm` found:
 * - `"confirmed"`: the caller's claim still held and is now the event's done marker;
 * - `"lease_lost"`: it no longer held (its lease ended, or another claim replaced it, so the
 *   event may have been processed twice); the event is marked processed all the same.
 */
export type ConfirmResult = "confirmed" | "lease_lost";

/**
 * Remembers which events were processed, so each runs your code once.
 * `createRedisStore` (`merchant-gateway/stores/redis`) and `createPostgresStore`
 * (`merchant-gateway/stores/postgres`) share it between processes; every method
 * may return a promise.
 *
 * - `claim` must be atomic: of concurrent claims of one id, only one may get
 *   `"claimed"` (Redis: a script or `SET NX PX`; SQL: `INSERT ... ON CONFLICT`,
 *   taking over a row whose lease or retention ended).
 * - A lease that expires without `confirm` (the process died mid-way) lets a
 *   later delivery claim the event again.
 * - `confirm` marks the event processed for good (or for a retention time far
 *   longer than the gateway retries); `release` forgets the claim so the next
 *   delivery processes it again.
 * - `token` identifies one claim: the handler and the reconciler make a new one for
 *   every claim and pass the same one to its `confirm` or `release`. `release` must
 *   forget only a claim made with the caller's token (compare and delete in one atomic
 *   step), so a slow process whose lease ended cannot delete the claim of the process
 *   that took over. A claim with the token of a claim still held is that same claim
 *   (a retried command): `"claimed"` again, with its lease renewed. Callers that pass no
 *   token all share one (the absent token), as before tokens existed.
 * - `claim` answers exactly `"claimed"`, `"processed"` or `"in_progress"`: the handler and the
 *   reconciler treat any other answer (a raw `SET NX` reply, `"OK"` or `null`) as a failed store
 *   and run nothing. Every call should answer well within their `storeTimeoutMs` (2 s).
 * - Event ids are any strings (a NUL, thousands of characters): store them in a form that takes
 *   them all, such as a fixed-length digest.
 */
export interface NotificationStore {
	/** Takes the event for `leaseMs`, unless it was processed or someone else holds it. */
	claim(eventId: string, leaseMs: number, token?: string): ClaimResult | Promise<ClaimResult>;
	/** Marks the claimed event processed for good. */
	// biome-ignore lint/suspicious/noConfusingVoidType: stores written before ConfirmResult return (a promise of) void.
	confirm(eventId: string, token?: string): void | ConfirmResult | Promise<void | ConfirmResult>;
	/** Forgets the caller's claim, so the next delivery processes the event again. */
	release(eventId: string, token?: string): void | Promise<void>;
	/**
	 * Records a failed run of the event (optional, with the three below: a store that has them keeps
	 * failed events): one more attempt, this run's message (an empty one keeps the message recorded
	 * before, if any) and error. When `failure.release` is true it
	 * also forgets the caller's claim (as `release`), in the same atomic step. Answers the attempts counted
	 * so far across every process, or 0 when the event is processed (then nothing is recorded). `release`
	 * keeps the record; `confirm` deletes it: a successful run clears it.
	 */
	recordFailure?(eventId: string, token: string | undefined, failure: EventFailure): number | Promise<number>;
	/** The failed event's record, or undefined when none is kept. */
	failedEvent?(eventId: string): FailedEventRecord | undefined | Promise<FailedEventRecord | undefined>;
	/** Up to `limit` records in the order the events first failed, from after the cursor `after`. */
	listFailedEvents?(options: FailedEventListing): FailedEventRecordPage | Promise<FailedEventRecordPage>;
	/** Deletes the event's record without running it; true when there was one. */
	discardFailedEvent?(eventId: string): boolean | Promise<boolean>;
}

/** A failed run, as `recordFailure` receives it. */
export interface EventFailure {
	/**
	 * The delivery's signed message as received, as text: a replay verifies it again, and needs no gateway.
	 * Empty for a run that has none (a reconciliation's): the message recorded before, if any, is kept.
	 */
	message: string;
	/** The error the run ended with: its class name and redacted message. */
	error: string;
	/** Whether to forget the caller's claim in the same step (false while the callback may still run). */
	release: boolean;
}

/** A failed event as a store keeps it. */
export interface FailedEventRecord {
	/** The event's id, exactly as recorded. */
	eventId: string;
	/**
	 * The signed message, as the last failed run that had one recorded it (empty when none had). Only a
	 * replay's verification makes it trusted: anyone who can write to the store could have written it.
	 */
	message: string;
	/** The last run's error: its class name and redacted message. */
	error: string;
	/** Failed runs counted across every process (gateway deliveries, reconciliations, replays). */
	attempts: number;
	/** When the first failure was recorded, in ms since the epoch, by the store's clock. */
	firstFailedAt: number;
	/** When the last failure was recorded, in ms since the epoch, by the store's clock. */
	lastFailedAt: number;
}

/** What `listFailedEvents` is asked for. */
export interface FailedEventListing {
	/** The most records to return (at least 1). */
	limit: number;
	/** The `next` of the page before; absent for the first page. */
	after?: string | undefined;
}

/** One page of failed-event records. */
export interface FailedEventRecordPage {
	/** The records, in the order their events first failed. */
	records: FailedEventRecord[];
	/** The cursor of the page after this one; undefined when this is the last. */
	next: string | undefined;
}

const FAILED_EVENT_METHODS = ["recordFailure", "failedEvent", "listFailedEvents", "discardFailedEvent"] as const;
type FailedEventMethod = (typeof FAILED_EVENT_METHODS)[number];

/** A store that keeps failed events, with all four methods: the memory, Redis and PostgreSQL stores are. */
export interface FailedEventStore
	extends Omit<NotificationStore, FailedEventMethod>,
		Required<Pick<NotificationStore, FailedEventMethod>> {}

/**
 * A store shared between processes (`createRedisStore`, `createPostgresStore`): it keeps failed events, and
 * every answer is a promise.
 */
export interface SharedStore extends FailedEventStore {
	/** Takes the event for `leaseMs`, unless it was processed or someone else holds it. */
	claim(eventId: string, leaseMs: number, token?: string): Promise<ClaimResult>;
	/** Marks the claimed event processed for good. */
	confirm(eventId: string, token?: string): Promise<ConfirmResult>;
	/** Forgets the caller's claim, so the next delivery processes the event again. */
	release(eventId: string, token?: string): Promise<void>;
	/** Records a failed run (releasing the claim with it when asked); answers the attempts so far, 0 if processed. */
	recordFailure(eventId: string, token: string | undefined, failure: EventFailure): Promise<number>;
	/** The failed event's record, or undefined. */
	failedEvent(eventId: string): Promise<FailedEventRecord | undefined>;
	/** Up to `limit` records in the order the events first failed, from after the cursor `after`. */
	listFailedEvents(options: FailedEventListing): Promise<FailedEventRecordPage>;
	/** Deletes the event's record without running it; true when there was one. */
	discardFailedEvent(eventId: string): Promise<boolean>;
}

/** Whether `store` keeps failed events: it has all four methods. */
export function keepsFailedEvents(store: NotificationStore): store is FailedEventStore {
	return FAILED_EVENT_METHODS.every((method) => typeof store[method] === "function");
}

/** How long a processed event is remembered when a store is not told: 7 days, far longer than the gateway retries. */
export const DEFAULT_TTL_MS = 7 * 24 * 3600 * 1000;

function isNotificationStore(value: unknown): value is NotificationStore {
	const store = value as Partial<NotificationStore> | null | undefined;
	return (
		typeof store?.claim === "function" && typeof store.confirm === "function" && typeof store.release === "function"
	);
}

/** Has none or all of the failed-event methods: some of them only is a store written by mistake. */
function failedEventMethodsComplete(store: NotificationStore): boolean {
	return keepsFailedEvents(store) || FAILED_EVENT_METHODS.every((method) => store[method] === undefined);
}

const FAILED_EVENT_RULE = `must have all or none of ${FAILED_EVENT_METHODS.join(", ")}`;

/** The option rule for a store (the handler's, the reconciler's). */
export const storeOption = () =>
	z
		.custom<NotificationStore>(isNotificationStore, requiredOr("must have claim, confirm and release methods"))
		.check(z.refine(failedEventMethodsComplete, FAILED_EVENT_RULE));

/** What a store throws for an `after` it did not make. */
export function invalidCursor(): ConfigurationError {
	const message = "must be the next of a page this store returned";
	return new ConfigurationError([{ field: "after", message }], "failed-event list options");
}
