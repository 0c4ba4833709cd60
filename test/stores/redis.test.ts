// What the contract suite cannot see: the keys and their TTLs on the server, the
// script cache, a client that is not connected, and the options.
import { Redis as IoRedis } from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError, NotificationStoreError } from "../../src/index.js";
import { createRedisStore } from "../../src/stores/redis.js";
import { freePort, type RedisServer, redisAvailability, startRedis } from "../support/real-servers.js";

const connectNodeRedis = (url: string) => createClient({ url }).connect();
const DAY = 24 * 3600 * 1000;

const available = redisAvailability();
const skipReason = available.reason ? ` (${available.reason})` : "";
describe.skipIf(!available.ok)(`createRedisStore on a real redis-server${skipReason}`, () => {
	let server: RedisServer;
	let redis: Awaited<ReturnType<typeof connectNodeRedis>>;
	beforeAll(async () => {
		server = await startRedis({ appendOnly: false });
		redis = await connectNodeRedis(server.url);
	});
	afterAll(async () => {
		await redis?.close();
		await server?.close();
	});

	it("a claim is a key under keyPrefix, its PX the lease; a confirm leaves a done marker living ttlMs", async () => {
		const store = createRedisStore({ client: redis, keyPrefix: "shop:ipn:", ttlMs: 3 * DAY });
		expect(await store.claim("transaction:T1:successful", 60_000, "tok")).toBe("claimed");
		const leaseLeft = await redis.pTTL("shop:ipn:transaction:T1:successful");
		expect(leaseLeft).toBeGreaterThan(30_000);
		expect(leaseLeft).toBeLessThanOrEqual(60_000);
		expect(await store.confirm("transaction:T1:successful", "tok")).toBe("confirmed");
		const doneLeft = await redis.pTTL("shop:ipn:transaction:T1:successful");
		expect(doneLeft).toBeGreaterThan(3 * DAY - 60_000);
		expect(doneLeft).toBeLessThanOrEqual(3 * DAY);
	});

	it("the default done marker lives 7 days, under merchant-gateway:event:", async () => {
		const store = createRedisStore({ client: redis });
		await store.claim("refund:R1:refund_successful", 60_000, "tok");
		await store.confirm("refund:R1:refund_successful", "tok");
		const left = await redis.pTTL("merchant-gateway:event:refund:R1:refund_successful");
		expect(left).toBeGreaterThan(7 * DAY - 60_000);
		expect(left).toBeLessThanOrEqual(7 * DAY);
	});

	it("failed events live under failedKeyPrefix (default failed: + keyPrefix), with no TTL; a confirm deletes them", async () => {
		const store = createRedisStore({ client: redis, keyPrefix: "shop:" });
		expect(await store.claim("e", 60_000, "tok")).toBe("claimed");
		expect(await store.recordFailure("e", "tok", { message: "m", error: "Error: x", release: true })).toBe(1);
		expect(await redis.exists("shop:e")).toBe(0);
		expect(await redis.hKeys("failed:shop:records")).toEqual(["e"]);
		expect(await redis.zRange("failed:shop:index", 0, -1)).toEqual(["e"]);
		expect(await redis.get("failed:shop:sequence")).toBe("1");
		expect(await redis.pTTL("failed:shop:records")).toBe(-1);
		const other = createRedisStore({ client: redis, keyPrefix: "shop:", failedKeyPrefix: "kept:" });
		expect(await other.failedEvent("e")).toBeUndefined();
		expect(await store.claim("e", 60_000, "tok2")).toBe("claimed");
		expect(await store.confirm("e", "tok2")).toBe("confirmed");
		expect(await redis.hLen("failed:shop:records")).toBe(0);
		expect(await redis.zCard("failed:shop:index")).toBe(0);
	});

	it("refuses failed-event keys that could be an event's key (under keyPrefix)", () => {
		for (const options of [
			{ keyPrefix: "" },
			{ keyPrefix: "failed:" },
			{ failedKeyPrefix: "merchant-gateway:event:f" },
		]) {
			expect(() => createRedisStore({ client: redis, ...options })).toThrow(
				/^Invalid Redis store options: failedKeyPrefix: must not make keys that start with keyPrefix/,
			);
		}
	});

	it("refuses failed-event keys of which only one could be an event's key", () => {
		// "f:records" is under keyPrefix "f:r"; "f:index" and "f:sequence" are not.
		expect(() => createRedisStore({ client: redis, keyPrefix: "f:r", failedKeyPrefix: "f:" })).toThrow(
			'failedKeyPrefix: must not make keys that start with keyPrefix ("f:r")',
		);
	});

	it("a failed-event record another process wrote in another shape is refused, not handed out", async () => {
		const store = createRedisStore({ client: redis, keyPrefix: "tamper:" });
		const valid = { message: "m", error: "e", attempts: 1, firstFailedAt: 1, lastFailedAt: 2 };
		await redis.hSet("failed:tamper:records", "ok", JSON.stringify(valid));
		expect(await store.failedEvent("ok")).toEqual({ eventId: "ok", ...valid });
		for (const [id, record] of [
			["attempts-text", { ...valid, attempts: "1" }],
			["message-number", { ...valid, message: 5 }],
			["error-missing", { ...valid, error: undefined }],
			["time-text", { ...valid, lastFailedAt: "2" }],
		] as const) {
			await redis.hSet("failed:tamper:records", id, JSON.stringify(record));
			await expect(store.failedEvent(id)).rejects.toThrow(
				new NotificationStoreError(`Redis: the failed-event record of ${id} is not one this store wrote.`),
			);
		}
		await redis.hSet("failed:tamper:records", "not-json", "{");
		await expect(store.failedEvent("not-json")).rejects.toBeInstanceOf(NotificationStoreError);
	});

	it("an index entry whose record is gone (deleted by hand) is skipped by the list, not a failure", async () => {
		const store = createRedisStore({ client: redis, keyPrefix: "orphan:" });
		for (const id of ["a", "gone", "b"])
			await store.recordFailure(id, undefined, { message: "m", error: "e", release: true });
		await redis.hDel("failed:orphan:records", "gone");
		const page = await store.listFailedEvents({ limit: 10 });
		expect(page.records.map((record) => record.eventId)).toEqual(["a", "b"]);
	});

	it.each(["x1", "1x", "0", "01", "1.5", "12345678901234567"])("refuses the failed-event cursor %j", async (after) => {
		const store = createRedisStore({ client: redis, keyPrefix: "cursor:" });
		await expect(store.listFailedEvents({ limit: 1, after })).rejects.toBeInstanceOf(ConfigurationError);
	});

	it("stores with different key prefixes do not see each other's events", async () => {
		const a = createRedisStore({ client: redis, keyPrefix: "a:" });
		const b = createRedisStore({ client: redis, keyPrefix: "b:" });
		expect(await a.claim("e", 60_000, "x")).toBe("claimed");
		expect(await b.claim("e", 60_000, "y")).toBe("claimed");
	});

	it.each(["node-redis", "ioredis"])("loads its scripts again after SCRIPT FLUSH, with %s", async (driver) => {
		const ioredis = driver === "ioredis" ? new IoRedis(server.port, "127.0.0.1") : undefined;
		await ioredis?.ping();
		const store = createRedisStore({ client: ioredis ?? redis, keyPrefix: `flush-${driver}:` });
		try {
			expect(await store.claim("e1", 60_000, "x")).toBe("claimed");
			await redis.scriptFlush();
			expect(await store.claim("e2", 60_000, "x")).toBe("claimed");
			expect(await store.confirm("e2", "x")).toBe("confirmed");
		} finally {
			ioredis?.disconnect();
		}
	});

	it.each(["node-redis", "ioredis"])(
		"each script is sent to the server once, then run by its SHA-1, with %s",
		async (driver) => {
			const ioredis = driver === "ioredis" ? new IoRedis(server.port, "127.0.0.1") : undefined;
			await ioredis?.ping();
			const sent: string[] = [];
			// The driver's own client, with its EVAL (a script's whole text) counted.
			const client =
				ioredis === undefined
					? {
							isReady: true,
							evalSha: redis.evalSha.bind(redis),
							eval: (script: string, options: { keys: string[]; arguments: string[] }) => {
								sent.push(script);
								return redis.eval(script, options);
							},
						}
					: {
							status: "ready",
							evalsha: ioredis.evalsha.bind(ioredis),
							eval: (script: string, numKeys: number, ...args: string[]) => {
								sent.push(script);
								return ioredis.eval(script, numKeys, ...args);
							},
						};
			try {
				await redis.scriptFlush();
				const store = createRedisStore({ client, keyPrefix: `sha-${driver}:` });
				for (const id of ["e1", "e2", "e3"]) expect(await store.claim(id, 60_000, "x")).toBe("claimed");
				expect(sent).toHaveLength(1);
			} finally {
				ioredis?.disconnect();
			}
		},
	);

	it("an ioredis-like client without a status (a wrapper) is taken as connected", async () => {
		const ioredis = new IoRedis(server.port, "127.0.0.1");
		await ioredis.ping();
		try {
			const client = { evalsha: ioredis.evalsha.bind(ioredis), eval: ioredis.eval.bind(ioredis) };
			expect(await createRedisStore({ client, keyPrefix: "no-status:" }).claim("e", 60_000, "x")).toBe("claimed");
		} finally {
			ioredis.disconnect();
		}
	});

	it("a claim script answer other than 1, 2 or 3 (a proxy in between) is a NotificationStoreError", async () => {
		const client = { isReady: true, evalSha: async () => "OK", eval: async () => "OK" };
		await expect(createRedisStore({ client }).claim("e", 60_000, "x")).rejects.toThrow(
			new NotificationStoreError("Redis: the claim script answered OK."),
		);
	});

	it("a client not connected fails at once with NotificationStoreError, not after a queue timeout", async () => {
		const idle = createClient({ url: `redis://127.0.0.1:${await freePort()}` });
		const lazy = new IoRedis(await freePort(), "127.0.0.1", { lazyConnect: true });
		for (const client of [idle, lazy]) {
			const store = createRedisStore({ client });
			const error = await Promise.resolve(store.claim("e", 60_000, "x")).catch((e: unknown) => e);
			expect(error).toBeInstanceOf(NotificationStoreError);
			expect((error as Error).message).toMatch(/^Redis: the client is not connected/);
		}
	});

	it.each(["node-redis", "ioredis"])(
		"a driver failure becomes NotificationStoreError with the driver's error as cause, with %s",
		async (driver) => {
			const refuse = async () => {
				throw new Error("READONLY You can't write against a read only replica.");
			};
			// Only a missing script is sent again with EVAL: any other failure is the answer.
			const failing =
				driver === "ioredis"
					? { status: "ready", evalsha: refuse, eval: async () => 1 }
					: { isReady: true, evalSha: refuse, eval: async () => 1 };
			const claim = createRedisStore({ client: failing }).claim("e", 60_000, "x");
			const error = await claim.catch((e: unknown) => e);
			expect(error).toBeInstanceOf(NotificationStoreError);
			expect(error).toMatchObject({ message: "Redis: READONLY You can't write against a read only replica." });
			expect((error as Error).cause).toBeInstanceOf(Error);
		},
	);

	it("refuses a missing or foreign client and bad options with ConfigurationError naming each field", () => {
		expect(() => createRedisStore(undefined as never)).toThrow(ConfigurationError);
		expect(() => createRedisStore({ client: null as never })).toThrow(
			"Invalid Redis store options: client: must be a node-redis (redis 5+) or ioredis client",
		);
		const error = (() => {
			try {
				const client = { get: () => {} } as never;
				createRedisStore({ client, ttlMs: 0, keyPrefix: 5 as never, failedKeyPrefix: 6 as never });
			} catch (e) {
				return e as ConfigurationError;
			}
		})();
		expect(error).toBeInstanceOf(ConfigurationError);
		expect(error?.issues.map((issue) => issue.field)).toEqual(["client", "keyPrefix", "ttlMs", "failedKeyPrefix"]);
		expect(error?.message).toMatch(
			/^Invalid Redis store options: client: must be a node-redis \(redis 5\+\) or ioredis client; /,
		);
		expect(error?.issues).toContainEqual({ field: "keyPrefix", message: "must be a string" });
		expect(error?.issues).toContainEqual({ field: "failedKeyPrefix", message: "must be a string" });
	});
});
