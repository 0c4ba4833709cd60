import { ConfigurationError } from "../errors/configuration-error.js";

/**
 * What `claim` found:
 * - `"claimed"`: the caller now holds the lease and must `confirm` or `release`;
 * - `"processed"`: the event was confirmed before (a duplicate delivery);
 * - `"in_progress"`: someone else holds an unexpired lease.
 */
export type ClaimResult = "claimed" | "processed" | "in_progress";

/**
 * Remembers which events were processed, so each runs your code once (D7).
 * Implement it over Redis, SQL or similar to share it between processes; every
 * method may return a promise.
 *
 * - `claim` must be atomic: of concurrent claims of one id, only one may get
 *   `"claimed"` (Redis `SET id processing NX PX leaseMs`; SQL `INSERT ... ON
 *   CONFLICT DO NOTHING`, taking over a row whose lease expired).
 * - A lease that expires without `confirm` (the process died mid-way) lets a
 *   later delivery claim the event again.
 * - `confirm` marks the event processed for good (or for a retention time far
 *   longer than the gateway retries); `release` forgets the claim so the next
 *   delivery processes it again.
 */
export interface NotificationStore {
	claim(eventId: string, leaseMs: number): ClaimResult | Promise<ClaimResult>;
	confirm(eventId: string): void | Promise<void>;
	release(eventId: string): void | Promise<void>;
}

export interface MemoryStoreOptions {
	/** How long a processed event is remembered, in milliseconds. @default 604_800_000 (7 days) */
	ttlMs?: number | undefined;
	/** Most events kept; once it is reached the oldest, by the time they were claimed, are forgotten first. @default 100_000 */
	maxEntries?: number | undefined;
	/** Clock, for tests. @default Date.now */
	now?: (() => number) | undefined;
}

interface Entry {
	processed: boolean;
	/** Lease end while processing; forget-after time once processed. */
	until: number;
}

function positiveInteger(field: string, value: number | undefined, fallback: number): number {
	if (value === undefined) return fallback;
	if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigurationError([{ field, message: "must be a positive integer" }], "memory store options");
	return value;
}

/**
 * The default store: one process's memory, with a time to live and a size
 * bound. It forgets everything on restart and is not shared between processes
 * or serverless instances: use your own `NotificationStore` there (and, as the
 * gateway may always deliver twice, keep your own writes idempotent too).
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
		claim(eventId, leaseMs) {
			const time = now();
			const entry = entries.get(eventId);
			if (entry && entry.until > time) return entry.processed ? "processed" : "in_progress";
			put(eventId, { processed: false, until: time + leaseMs });
			return "claimed";
		},
		confirm(eventId) {
			const entry = entries.get(eventId);
			if (entry) {
				entry.processed = true;
				entry.until = now() + ttlMs;
			} else put(eventId, { processed: true, until: now() + ttlMs });
		},
		release(eventId) {
			const entry = entries.get(eventId);
			if (entry && !entry.processed) entries.delete(eventId);
		},
	};
}
