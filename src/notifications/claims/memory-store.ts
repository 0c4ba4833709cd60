import * as z from "zod/mini";
import { duration, optionalFunction, parseOptions, positiveInteger } from "../../internal/options.js";
import { lazySchema } from "../../schemas/lazy.js";
import {
	DEFAULT_TTL_MS,
	type FailedEventRecord,
	type FailedEventStore,
	invalidCursor,
	type NotificationStore,
} from "./store.js";

/** Limits of the in-memory store. */
export interface MemoryStoreOptions {
	/** How long a processed event is remembered, in milliseconds. @default 604_800_000 (7 days) */
	ttlMs?: number | undefined;
	/**
	 * Most events kept; once it is reached the oldest, by the time they were claimed, are forgotten first. The
	 * same bound applies to failed events, the oldest failure forgotten first. @default 100_000
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

const memoryStoreOptions = lazySchema(() =>
	z.object({
		ttlMs: duration(DEFAULT_TTL_MS),
		maxEntries: positiveInteger(100_000),
		now: optionalFunction<() => number>(),
	}),
);

/** The stores this module made: the handler warns when one serves a production deployment. */
const memoryStores = new WeakSet<NotificationStore>();

interface RuntimeProcess {
	env?: Record<string, string | undefined>;
	emitWarning?: (message: string, options: { type: string; code: string }) => void;
}

/** The one warning the package prints itself, once per process. */
const MEMORY_STORE_WARNING =
	"The IPN handler uses the in-memory store while NODE_ENV is production. It forgets processed events on " +
	"restart (and past its ttlMs and maxEntries), and is not shared between processes or instances: an IPN " +
	"delivered again then runs your callback again. Pass createRedisStore or createPostgresStore as `store`.";

let warned = false;

/**
 * Warns once, through `process.emitWarning` (or `console.warn` where there is none), when a handler starts
 * on the memory store in a production-looking environment (`NODE_ENV=production`).
 */
export function warnIfMemoryStoreInProduction(store: NotificationStore): void {
	if (warned || !memoryStores.has(store)) return;
	const runtime = (globalThis as { process?: RuntimeProcess }).process;
	if (runtime?.env?.NODE_ENV !== "production") return;
	warned = true;
	if (typeof runtime.emitWarning === "function") {
		runtime.emitWarning(MEMORY_STORE_WARNING, {
			type: "MerchantGatewayWarning",
			code: "MERCHANT_GATEWAY_MEMORY_STORE",
		});
	} else {
		console.warn(`merchant-gateway: ${MEMORY_STORE_WARNING}`);
	}
}

/**
 * The default store: one process's memory, with a time to live and a size
 * bound. It forgets everything on restart and is not shared between processes
 * or serverless instances: use `createRedisStore` or `createPostgresStore` there
 * (and, as a crash can always come between your write and the confirm, keep your
 * own writes idempotent too).
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): FailedEventStore {
	const { ttlMs, maxEntries, now = Date.now } = parseOptions(memoryStoreOptions, options, "memory store options");
	// Insertion order is age order, the age of an event counting from its claim: a claim
	// deletes and re-inserts its id, a confirm updates the claimed entry where it stands.
	const entries = new Map<string, Entry>();
	// Insertion order is the order of first failure: a later failure updates its record where it stands.
	const failed = new Map<string, FailedEventRecord & { sequence: number }>();
	let sequence = 0;

	function forget(eventId: string, token: string | undefined): void {
		const entry = entries.get(eventId);
		if (entry && !entry.processed && entry.token === token) entries.delete(eventId);
	}

	const copy = ({ sequence: _, ...record }: FailedEventRecord & { sequence: number }): FailedEventRecord => record;

	function put(eventId: string, entry: Entry): void {
		entries.delete(eventId);
		while (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
		entries.set(eventId, entry);
	}

	const store: FailedEventStore = {
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
			const held = entry !== undefined && !entry.processed && entry.token === token && entry.until > time;
			if (entry) Object.assign(entry, { processed: true, until: time + ttlMs });
			else put(eventId, { processed: true, until: time + ttlMs, token });
			failed.delete(eventId);
			return held ? "confirmed" : "lease_lost";
		},
		release: forget,
		recordFailure(eventId, token, failure) {
			const time = now();
			const entry = entries.get(eventId);
			if (entry?.processed && entry.until > time) return 0;
			if (failure.release) forget(eventId, token);
			const { message, error } = failure;
			const known = failed.get(eventId);
			if (known) {
				if (message !== "") known.message = message;
				Object.assign(known, { error, attempts: known.attempts + 1, lastFailedAt: time });
				return known.attempts;
			}
			while (failed.size >= maxEntries) failed.delete(failed.keys().next().value as string);
			failed.set(eventId, {
				eventId,
				message,
				error,
				attempts: 1,
				firstFailedAt: time,
				lastFailedAt: time,
				sequence: ++sequence,
			});
			return 1;
		},
		failedEvent(eventId) {
			const record = failed.get(eventId);
			return record && copy(record);
		},
		listFailedEvents({ limit, after }) {
			const from = after === undefined ? 0 : Number(after);
			if (!Number.isSafeInteger(from) || from < 0 || (after !== undefined && after !== String(from))) {
				throw invalidCursor();
			}
			const records: FailedEventRecord[] = [];
			let last = 0;
			for (const record of failed.values()) {
				if (record.sequence <= from) continue;
				if (records.length === limit) return { records, next: String(last) };
				records.push(copy(record));
				last = record.sequence;
			}
			return { records, next: undefined };
		},
		discardFailedEvent(eventId) {
			return failed.delete(eventId);
		},
	};
	memoryStores.add(store);
	return store;
}
