/**
 * The `NotificationStore` over Redis, shared by every instance of your IPN route. It imports no Redis
 * driver: you pass a connected client (node-redis 5+ or ioredis 5+).
 * @module merchant-gateway/stores/redis
 */
import { createHash } from "node:crypto";
import * as z from "zod/mini";
import { NotificationStoreError } from "../errors/notification-store-error.js";
import { duration, parseOptions } from "../internal/options.js";
import {
	type ClaimResult,
	type ConfirmResult,
	DEFAULT_TTL_MS,
	type NotificationStore,
} from "../notifications/store.js";
import { lazySchema } from "../schemas/lazy.js";
import { driverMessage } from "./driver-message.js";

/** The Redis store: a `NotificationStore` whose every answer is a promise. */
export interface RedisStore extends NotificationStore {
	/** Takes the event for `leaseMs`, unless it was processed or someone else holds it. */
	claim(eventId: string, leaseMs: number, token?: string): Promise<ClaimResult>;
	/** Marks the claimed event processed for good. */
	confirm(eventId: string, token?: string): Promise<ConfirmResult>;
	/** Forgets the caller's claim, so the next delivery processes the event again. */
	release(eventId: string, token?: string): Promise<void>;
}

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
}

// One Lua script per step, so each is a single atomic step on the server, whatever else runs.
// A key holds "claim:<token>" while claimed (with the lease as its PX) and "done" once confirmed.
const CLAIM = `local v = redis.call('GET', KEYS[1])
if not v then
	redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
	return 1
end
if v == 'done' then return 2 end
if ARGV[3] == '1' and v == ARGV[1] then
	redis.call('PEXPIRE', KEYS[1], ARGV[2])
	return 1
end
return 3`;
const CONFIRM = `local v = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], 'done', 'PX', ARGV[2])
if v == ARGV[1] then return 1 end
return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
	redis.call('DEL', KEYS[1])
	return 1
end
return 0`;

interface Script {
	source: string;
	sha1: string;
}

const script = (source: string): Script => ({ source, sha1: createHash("sha1").update(source).digest("hex") });
const CLAIM_RESULTS: readonly (ClaimResult | undefined)[] = [undefined, "claimed", "processed", "in_progress"];
const NOT_CONNECTED = "Redis: the client is not connected";

type Evaluate = (script: Script, key: string, args: string[]) => Promise<unknown>;

function isNoScript(error: unknown): boolean {
	return error instanceof Error && error.message.startsWith("NOSCRIPT");
}

/** EVALSHA, and EVAL when the server does not have the script (first use, restart, SCRIPT FLUSH). */
function evaluator(client: NodeRedisClientLike | IoRedisClientLike): Evaluate | undefined {
	if (typeof (client as NodeRedisClientLike).evalSha === "function") {
		const redis = client as NodeRedisClientLike;
		return async (s, key, args) => {
			if (redis.isReady === false) throw new NotificationStoreError(`${NOT_CONNECTED} (isReady is false).`);
			const options = { keys: [key], arguments: args };
			try {
				return await redis.evalSha(s.sha1, options);
			} catch (error) {
				if (!isNoScript(error)) throw error;
				return await redis.eval(s.source, options);
			}
		};
	}
	if (typeof (client as IoRedisClientLike).evalsha === "function") {
		const redis = client as IoRedisClientLike;
		return async (s, key, args) => {
			if (redis.status !== undefined && redis.status !== "ready") {
				throw new NotificationStoreError(`${NOT_CONNECTED} (status "${redis.status}").`);
			}
			try {
				return await redis.evalsha(s.sha1, 1, key, ...args);
			} catch (error) {
				if (!isNoScript(error)) throw error;
				return await redis.eval(s.source, 1, key, ...args);
			}
		};
	}
	return undefined;
}

const redisStoreOptions = lazySchema(() =>
	z.object({
		client: z.custom<NodeRedisClientLike | IoRedisClientLike>(
			(client) => typeof client === "object" && client !== null && evaluator(client as never) !== undefined,
			"must be a node-redis (redis 5+) or ioredis client",
		),
		keyPrefix: z._default(z.string({ error: "must be a string" }), "merchant-gateway:event:"),
		ttlMs: duration(DEFAULT_TTL_MS),
	}),
);

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
 * @throws ConfigurationError for a missing client or bad options.
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
	const config = parseOptions(redisStoreOptions, options, "Redis store options");
	const run = evaluator(config.client) as Evaluate;
	const { keyPrefix } = config;
	const ttl = String(config.ttlMs);
	const claim = script(CLAIM);
	const confirm = script(CONFIRM);
	const release = script(RELEASE);

	async function call(s: Script, eventId: string, args: string[]): Promise<unknown> {
		try {
			return await run(s, keyPrefix + eventId, args);
		} catch (error) {
			if (error instanceof NotificationStoreError) throw error;
			throw new NotificationStoreError(`Redis: ${driverMessage(error)}`, { cause: error });
		}
	}

	return {
		async claim(eventId, leaseMs, token) {
			const own = token === undefined ? "0" : "1";
			const answer = await call(claim, eventId, [`claim:${token ?? ""}`, String(leaseMs), own]);
			const result = CLAIM_RESULTS[Number(answer)];
			if (result === undefined) throw new NotificationStoreError(`Redis: the claim script answered ${String(answer)}.`);
			return result;
		},
		async confirm(eventId, token) {
			return Number(await call(confirm, eventId, [`claim:${token ?? ""}`, ttl])) === 1 ? "confirmed" : "lease_lost";
		},
		async release(eventId, token) {
			await call(release, eventId, [`claim:${token ?? ""}`]);
		},
	};
}
