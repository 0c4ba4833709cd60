/**
 * The `NotificationStore` over Redis, shared by every instance of your IPN route. It imports no Redis
 * driver: you pass a connected client (node-redis 5+ or ioredis 5+).
 * @module merchant-gateway/stores/redis
 */
import { createHash } from "node:crypto";
import * as z from "zod/mini";
import { ConfigurationError } from "../errors/configuration-error.js";
import { NotificationStoreError } from "../errors/notification-store-error.js";
import { duration, parseOptions } from "../internal/options.js";
import {
	type ClaimResult,
	DEFAULT_TTL_MS,
	type FailedEventRecord,
	invalidCursor,
	type SharedStore,
} from "../notifications/claims/store.js";
import { lazySchema } from "../schemas/lazy.js";
import { driverMessage } from "./driver-message.js";

/** The Redis store: a `NotificationStore` whose every answer is a promise. */
export interface RedisStore extends SharedStore {}

/** What the store calls on a node-redis client (`createClient()` of the `redis` package, v5 or later). */
export interface NodeRedisClientLike {
	/** False while the client is not connected (or reconnecting). */
	readonly isReady?: boolean;
	/** Runs a script the server already knows. */
	evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
	/** Runs a script, teaching it to the server. */
	eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** What the store calls on an ioredis client (`new Redis()`, v5 or later). */
export interface IoRedisClientLike {
	/** `"ready"` once connected. */
	readonly status?: string;
	/** Runs a script the server already knows. */
	evalsha(sha1: string, numKeys: number, ...args: string[]): Promise<unknown>;
	/** Runs a script, teaching it to the server. */
	eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/** Options of `createRedisStore`. */
export interface RedisStoreOptions {
	/** A connected client: node-redis (`redis` 5+) or ioredis. The store never connects, closes or configures it. */
	client: NodeRedisClientLike | IoRedisClientLike;
	/** Prepended to every event id to make its key. @default "merchant-gateway:event:" */
	keyPrefix?: string | undefined;
	/**
	 * How long a processed event's done marker lives, in milliseconds (Redis `PX`), at most 2147483647.
	 * @default 604_800_000 (7 days)
	 */
	ttlMs?: number | undefined;
	/**
	 * Prepended to the names of the keys that keep failed events (`records`, a hash of them by event id;
	 * `index`, a sorted set in the order of first failure; `sequence`, its counter). They must not start
	 * with `keyPrefix`, where they could be an event's key. Failed events are kept until a run succeeds
	 * or they are discarded: they have no TTL.
	 * @default "failed:" followed by keyPrefix ("failed:merchant-gateway:event:")
	 */
	failedKeyPrefix?: string | undefined;
}

interface Script {
	source: string;
	sha1: string;
}

const script = (source: string): Script => ({ source, sha1: createHash("sha1").update(source).digest("hex") });

// One Lua script per step, so each is a single atomic step on the server, whatever else runs.
// A key holds "claim:<token>" while claimed (with the lease as its PX) and "done" once confirmed.
const CLAIM = script(`local v = redis.call('GET', KEYS[1])
if not v then
	redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
	return 1
end
if v == 'done' then return 2 end
if ARGV[3] == '1' and v == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return 1
end
return 3`);
// KEYS[2..4] are the failed events' records, index and sequence: a confirm deletes the event's record.
const CONFIRM = script(`local v = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[3])
if v == ARGV[1] then return 1 end
return 0`);
const RELEASE = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('DEL', KEYS[1])
	return 1
end
return 0`);

// A failed run: one more attempt in the event's record (made, and indexed, on the first), the claim
// released with it when ARGV[2] is '1'. Nothing is recorded for a processed event: 0. Times are the server's.
const RECORD_FAILURE = script(`if redis.call('GET', KEYS[1]) == 'done' then return 0 end
if ARGV[2] == '1' and redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local old = redis.call('HGET', KEYS[2], ARGV[3])
local attempts, first, message = 1, now, ARGV[4]
if old then
	local record = cjson.decode(old)
	attempts = record.attempts + 1
	first = record.firstFailedAt
	if message == '' then message = record.message end
else
	redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[3])
end
local record = {message = message, error = ARGV[5], attempts = attempts, firstFailedAt = first, lastFailedAt = now}
redis.call('HSET', KEYS[2], ARGV[3], cjson.encode(record))
return attempts`);
const FAILED_EVENT = script(`return redis.call('HGET', KEYS[1], ARGV[1])`);
// Up to ARGV[2] + 1 records after the sequence number ARGV[1]: id, sequence, record for each.
const LIST_FAILED =
	script(`local ids = redis.call('ZRANGE', KEYS[1], '(' .. ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, ARGV[2] + 1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
	out[#out + 1] = ids[i]
	out[#out + 1] = ids[i + 1]
	out[#out + 1] = redis.call('HGET', KEYS[2], ids[i]) or ''
end
return out`);
const DISCARD_FAILED = script(`redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])`);

const CLAIM_RESULTS: readonly (ClaimResult | undefined)[] = [undefined, "claimed", "processed", "in_progress"];
const NOT_CONNECTED = "Redis: the client is not connected";

type Evaluate = (script: Script, keys: string[], args: string[]) => Promise<unknown>;

function isNoScript(error: unknown): boolean {
	return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/** EVALSHA, and EVAL when the server does not have the script (first use, restart, SCRIPT FLUSH). */
function evaluator(client: NodeRedisClientLike | IoRedisClientLike): Evaluate | undefined {
	const node = client as NodeRedisClientLike;
	const io = client as IoRedisClientLike;
	const isNodeRedis = typeof node.evalSha === "function";
	if (!isNodeRedis && typeof io.evalsha !== "function") return undefined;
	return async (s, keys, args) => {
		if (isNodeRedis && node.isReady === false) throw new NotificationStoreError(`${NOT_CONNECTED} (isReady is false).`);
		if (!isNodeRedis && io.status !== undefined && io.status !== "ready") {
			throw new NotificationStoreError(`${NOT_CONNECTED} (status "${io.status}").`);
		}
		const options = { keys, arguments: args };
		try {
			return await (isNodeRedis ? node.evalSha(s.sha1, options) : io.evalsha(s.sha1, keys.length, ...keys, ...args));
		} catch (error) {
			if (!isNoScript(error)) throw error;
			return await (isNodeRedis ? node.eval(s.source, options) : io.eval(s.source, keys.length, ...keys, ...args));
		}
	};
}

const redisStoreOptions = lazySchema(() =>
	z.object({
		client: z.custom<NodeRedisClientLike | IoRedisClientLike>(
			(client) => typeof client === "object" && client !== null && evaluator(client as never) !== undefined,
			"must be a node-redis (redis 5+) or ioredis client",
		),
		keyPrefix: z._default(z.string({ error: "must be a string" }), "merchant-gateway:event:"),
		ttlMs: duration(DEFAULT_TTL_MS),
		failedKeyPrefix: z.optional(z.string({ error: "must be a string" })),
	}),
);

/** The failed events' keys, or the error saying why they could be an event's key. */
function failedKeys(keyPrefix: string, failedKeyPrefix: string = `failed:${keyPrefix}`) {
	const keys = {
		records: `${failedKeyPrefix}records`,
		index: `${failedKeyPrefix}index`,
		sequence: `${failedKeyPrefix}sequence`,
	};
	if (Object.values(keys).some((key) => key.startsWith(keyPrefix))) {
		const message = `must not make keys that start with keyPrefix ("${keyPrefix}"), where an event's key could be`;
		throw new ConfigurationError([{ field: "failedKeyPrefix", message }], "Redis store options");
	}
	return keys;
}

/**
 * A `NotificationStore` on Redis, shared by every process that uses the same
 * server and `keyPrefix`: each event's callback runs once across the fleet (see
 * the README for the exact guarantee).
 *
 * ```ts
 * import { createClient } from "redis";
 * import { createRedisStore } from "merchant-gateway/stores/redis";
 *
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const store = createRedisStore({ client: redis });
 * ```
 *
 * A claim is a key holding the claim's token for the lease (`PX`); confirm turns
 * it into a done marker that lives `ttlMs`; release deletes it only if it still
 * holds the caller's token. Each step is one Lua script (EVALSHA), so it is
 * atomic on the server. While the client is disconnected every call fails at
 * once with `NotificationStoreError` (the handler then responds non-100 and runs
 * no callback), rather than waiting in the client's offline queue; a server that
 * stops answering is bounded by the handler's `storeTimeoutMs`. Done markers
 * survive a Redis restart only with persistence on (`appendonly yes`).
 *
 * Failed events (see the handler's `failedEvents`) are kept under `failedKeyPrefix`: a confirm deletes
 * the event's record in the same script.
 *
 * @throws ConfigurationError for a missing client or bad options.
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
	const config = parseOptions(redisStoreOptions, options, "Redis store options");
	const run = evaluator(config.client) as Evaluate;
	const { keyPrefix } = config;
	const failed = failedKeys(keyPrefix, config.failedKeyPrefix);
	const ttl = String(config.ttlMs);

	async function call(s: Script, keys: string[], args: string[]): Promise<unknown> {
		try {
			return await run(s, keys, args);
		} catch (error) {
			if (error instanceof NotificationStoreError) throw error;
			throw new NotificationStoreError(`Redis: ${driverMessage(error)}`, { cause: error });
		}
	}

	/** A record as the scripts keep it (JSON by Lua's cjson), or a NotificationStoreError for anything else. */
	function parseRecord(eventId: string, stored: unknown): FailedEventRecord {
		try {
			const { message, error, attempts, firstFailedAt, lastFailedAt } = JSON.parse(String(stored));
			const fields = [message, error, attempts, firstFailedAt, lastFailedAt];
			if (fields.every((field, i) => typeof field === (i < 2 ? "string" : "number"))) {
				return { eventId, message, error, attempts, firstFailedAt, lastFailedAt };
			}
		} catch {}
		throw new NotificationStoreError(`Redis: the failed-event record of ${eventId} is not one this store wrote.`);
	}

	return {
		async claim(eventId, leaseMs, token) {
			const own = token === undefined ? "0" : "1";
			const answer = await call(CLAIM, [keyPrefix + eventId], [`claim:${token ?? ""}`, String(leaseMs), own]);
			const result = CLAIM_RESULTS[Number(answer)];
			if (result === undefined) throw new NotificationStoreError(`Redis: the claim script answered ${String(answer)}.`);
			return result;
		},
		async confirm(eventId, token) {
			const keys = [keyPrefix + eventId, failed.records, failed.index];
			const answer = await call(CONFIRM, keys, [`claim:${token ?? ""}`, ttl, eventId]);
			return Number(answer) === 1 ? "confirmed" : "lease_lost";
		},
		async release(eventId, token) {
			await call(RELEASE, [keyPrefix + eventId], [`claim:${token ?? ""}`]);
		},
		async recordFailure(eventId, token, failure) {
			const keys = [keyPrefix + eventId, failed.records, failed.index, failed.sequence];
			const releasing = failure.release ? "1" : "0";
			const args = [`claim:${token ?? ""}`, releasing, eventId, failure.message, failure.error];
			return Number(await call(RECORD_FAILURE, keys, args));
		},
		async failedEvent(eventId) {
			const stored = await call(FAILED_EVENT, [failed.records], [eventId]);
			return stored === null || stored === undefined ? undefined : parseRecord(eventId, stored);
		},
		async listFailedEvents({ limit, after }) {
			if (after !== undefined && !/^[1-9][0-9]{0,15}$/.test(after)) throw invalidCursor();
			const args = [after ?? "0", String(limit)];
			const rows = ((await call(LIST_FAILED, [failed.index, failed.records], args)) as unknown[] | null) ?? [];
			const records: FailedEventRecord[] = [];
			let next: string | undefined;
			for (let i = 0; i < rows.length; i += 3) {
				if (records.length === limit) {
					next = String(rows[i - 2]);
					break;
				}
				// An index entry whose record a concurrent confirm just deleted is skipped.
				if (rows[i + 2] !== "") records.push(parseRecord(String(rows[i]), rows[i + 2]));
			}
			return { records, next };
		},
		async discardFailedEvent(eventId) {
			return Number(await call(DISCARD_FAILED, [failed.records, failed.index], [eventId])) === 1;
		},
	};
}
