import { ConfigurationError } from "../errors/configuration-error.js";

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

/** Limits of the in-memory store. */
export interface MemoryStoreOptions {
	/** How long a processed event is remembered, in milliseconds. @default 604_800_000 (7 days) */
	ttlMs?: number | undefined;
	/**
	 * Most events kept; once it is reached the oldest, by the time they were claimed, are forgotten first. @default
	 * 100_000
	 */
	maxEntries?: number | undefined;
	/** Clock, for tests. @default Date.now */
	now?: (() => number) | undefined;
}

interface Entry {
	processed: boolean;
	/** Lease end while processing; forget-after time once processed. */
	until: number;
	/** The claim's token (undefined for callers that pass none). */
	token: string | undefined;
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
	if (value === undefined) return fallback;
	if (!Number.isSafeInteger(value) || value <= 0)
		throw new ConfigurationError([{ field, message: "must be a positive integer" }], "memory store options");
	return value;
}

/**
 * The default store: one process's memory, with a time to live and a size
 * bound. It forgets everything on restart and is not shared between processes
 * or serverless instances: use `createRedisStore` or `createPostgresStore` there
 * (and, as a crash can always come between your write and the confirm, keep your
 * own writes idempotent too).
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): NotificationStore {
	const ttlMs = positiveInteger("ttlMs", options.ttlMs, 7 * 24 * 3600 * 1000);
	const maxEntries = positiveInteger("maxEntries", options.maxEntries, 100_000);
	const now = options.now ?? Date.now;
	// Insertion order is age order, the age of an event counting from its claim: a claim
	// deletes and re-inserts its id, a confirm updates the claimed entry where it stands.
	const entries = new Map<string, Entry>();

	function put(eventId: string, entry: Entry): void {
		entries.delete(eventId);
		while (entries.size >= maxEntries) {
			const oldest = entries.keys().next().value as string;
			entries.delete(oldest);
		}
		entries.set(eventId, entry);
	}

	return {
		claim(eventId, leaseMs, token) {
			const time = now();
			const entry = entries.get(eventId);
			if (entry && entry.until > time) {
				if (entry.processed) return "processed";
				if (token === undefined || entry.token !== token) return "in_progress";
				// The same claim again: renewed where it stands, so its age still counts from the first claim.
				entry.until = time + leaseMs;
				return "claimed";
			}
			put(eventId, { processed: false, until: time + leaseMs, token });
			return "claimed";
		},
		confirm(eventId, token) {
			const time = now();
			const entry = entries.get(eventId);
			if (entry) {
				const held = !entry.processed && entry.token === token && entry.until > time;
				entry.processed = true;
				entry.until = time + ttlMs;
				return held ? "confirmed" : "lease_lost";
			}
			put(eventId, { processed: true, until: time + ttlMs, token });
			return "lease_lost";
		},
		release(eventId, token) {
			const entry = entries.get(eventId);
			if (entry && !entry.processed && entry.token === token) entries.delete(eventId);
		},
	};
}
