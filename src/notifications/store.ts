import * as z from "zod/mini";
import { requiredOr } from "../internal/options.js";

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
}

/** How long a processed event is remembered when a store is not told: 7 days, far longer than the gateway retries. */
export const DEFAULT_TTL_MS = 7 * 24 * 3600 * 1000;

function isNotificationStore(value: unknown): value is NotificationStore {
	const store = value as Partial<NotificationStore> | null | undefined;
	return (
		typeof store?.claim === "function" && typeof store.confirm === "function" && typeof store.release === "function"
	);
}

/** The option rule for a store (the handler's, the reconciler's). */
export const storeOption = () =>
	z.custom<NotificationStore>(isNotificationStore, requiredOr("must have claim, confirm and release methods"));
