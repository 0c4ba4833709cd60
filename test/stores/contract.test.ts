// One contract, four stores: the memory store, Redis through node-redis and through
// ioredis, and PostgreSQL through pg, the last three on real servers. The memory
// store's time is a clock the test moves; the real stores' time is the server's, so
// their leases here are either long (a lease that must hold is 60 s) or short with
// an unbounded wait for the expiry (a lease that must end is 50 ms): no assertion
// depends on how fast the machine runs.
import { Redis as IoRedis } from "ioredis";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	ConfigurationError,
	createMemoryStore,
	type FailedEventStore,
	type NotificationStore,
} from "../../src/index.js";
import { createPostgresStore } from "../../src/stores/postgres.js";
import { createRedisStore } from "../../src/stores/redis.js";
import type { PostgresServer, RedisServer } from "../support/real-servers.js";
import { postgresAvailability, redisAvailability, startPostgres, startRedis } from "../support/real-servers.js";

interface Harness {
	/** A store on fresh event ids; `ttlMs` as the store's option. */
	make(options?: { ttlMs?: number }): NotificationStore;
	/** Lets `ms` of the store's time pass. */
	pass(ms: number): Promise<void>;
	/** Two store objects on one fresh namespace (two processes of one fleet), failed events kept. */
	failing(): Promise<[FailedEventStore, FailedEventStore]>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const connectNodeRedis = (url: string) => createClient({ url }).connect();

/** Polls `claim` until it answers `expected`, letting time pass in between; fails only if it never does (60 s). */
async function eventually(harness: Harness, probe: () => Promise<string>, expected: string): Promise<void> {
	let last = "";
	for (let i = 0; i < 1000; i++) {
		last = await probe();
		if (last === expected) return;
		await harness.pass(60);
	}
	throw new Error(`still ${last}, expected ${expected}`);
}

let sequence = 0;
/** A store whose event ids no other test uses, so one server serves every test. */
function isolated(store: NotificationStore): NotificationStore {
	const prefix = `t${++sequence}-`;
	return {
		claim: (id, lease, token) => store.claim(prefix + id, lease, token),
		confirm: (id, token) => store.confirm(prefix + id, token),
		release: (id, token) => store.release(prefix + id, token),
	};
}

function contract(name: string, setup: () => Harness) {
	describe(`NotificationStore contract: ${name}`, () => {
		let harness: Harness;
		beforeAll(() => {
			harness = setup();
		});

		it("claims once; others see in_progress while the lease holds, processed after confirm", async () => {
			const store = harness.make();
			expect(await store.claim("e", 60_000, "a")).toBe("claimed");
			expect(await store.claim("e", 60_000, "b")).toBe("in_progress");
			expect(await store.confirm("e", "a")).toBe("confirmed");
			expect(await store.claim("e", 60_000, "c")).toBe("processed");
			await store.release("e", "a");
			expect(await store.claim("e", 60_000, "d")).toBe("processed");
		});

		it("release forgets the caller's own claim, so the next delivery processes the event", async () => {
			const store = harness.make();
			expect(await store.claim("e", 60_000, "a")).toBe("claimed");
			await store.release("e", "a");
			expect(await store.claim("e", 60_000, "b")).toBe("claimed");
			expect(await store.confirm("e", "b")).toBe("confirmed");
		});

		it("token mismatch: another token's release changes nothing, its confirm reports lease_lost", async () => {
			const store = harness.make();
			expect(await store.claim("e", 60_000, "owner")).toBe("claimed");
			await store.release("e", "intruder");
			expect(await store.claim("e", 60_000, "next")).toBe("in_progress");
			// A confirm by a token that does not hold the claim still records the work as done, and says so.
			expect(await store.confirm("e", "intruder")).toBe("lease_lost");
			expect(await store.claim("e", 60_000, "next")).toBe("processed");
			await store.release("e", "owner");
			expect(await store.claim("e", 60_000, "next")).toBe("processed");
		});

		it("a repeated claim with the held claim's token is that same claim (a retried command)", async () => {
			const store = harness.make();
			expect(await store.claim("e", 60_000, "a")).toBe("claimed");
			expect(await store.claim("e", 60_000, "a")).toBe("claimed");
			expect(await store.claim("e", 60_000, "b")).toBe("in_progress");
			expect(await store.confirm("e", "a")).toBe("confirmed");
			expect(await store.claim("e", 60_000, "a")).toBe("processed");
		});

		it("callers without a token share one, as before tokens existed", async () => {
			const store = harness.make();
			expect(await store.claim("e", 60_000)).toBe("claimed");
			expect(await store.claim("e", 60_000)).toBe("in_progress");
			await store.release("e");
			expect(await store.claim("e", 60_000)).toBe("claimed");
			expect(await store.confirm("e")).toBe("confirmed");
			expect(await store.claim("e", 60_000)).toBe("processed");
		});

		it("lease expiry: an expired claim (a crash) is claimed again; the old holder cannot release it", async () => {
			const store = harness.make();
			expect(await store.claim("e", 50, "crashed")).toBe("claimed");
			await eventually(harness, async () => await store.claim("e", 60_000, "rescuer"), "claimed");
			await store.release("e", "crashed");
			expect(await store.claim("e", 60_000, "third")).toBe("in_progress");
			expect(await store.confirm("e", "rescuer")).toBe("confirmed");
			expect(await store.claim("e", 60_000, "third")).toBe("processed");
		});

		it("a confirm after the lease ended reports lease_lost (the callback outlived its lease)", async () => {
			const store = harness.make();
			expect(await store.claim("e", 50, "slow")).toBe("claimed");
			expect(await store.claim("probe", 50, "x")).toBe("claimed");
			// Once the probe's 50 ms lease (taken after e's) has ended, e's has too.
			await eventually(harness, async () => await store.claim("probe", 50, "y"), "claimed");
			expect(await store.confirm("e", "slow")).toBe("lease_lost");
			expect(await store.claim("e", 60_000, "later")).toBe("processed");
		});

		it("done-marker TTL: a confirmed event is remembered for ttlMs, then forgotten", async () => {
			const short = harness.make({ ttlMs: 50 });
			const long = harness.make();
			for (const store of [short, long]) {
				expect(await store.claim("e", 60_000, "a")).toBe("claimed");
				expect(await store.confirm("e", "a")).toBe("confirmed");
			}
			await eventually(harness, async () => await short.claim("e", 60_000, "b"), "claimed");
			// The same time has passed for the store with the default TTL (7 days): still processed.
			expect(await long.claim("e", 60_000, "b")).toBe("processed");
		});

		it("any id is an event: a NUL, 4,000 characters, other scripts; ids differing in one character are two", async () => {
			const store = harness.make();
			const long = "x".repeat(4000);
			const ids = ["a\u0000b", "a\u0000c", long, `${long}y`, "transaction:ünïcødé-支付:successful", "\u0000"];
			for (const id of ids) {
				expect(await store.claim(id, 60_000, "a"), JSON.stringify(id.slice(0, 8))).toBe("claimed");
				expect(await store.confirm(id, "a")).toBe("confirmed");
			}
			for (const id of ids) expect(await store.claim(id, 60_000, "b")).toBe("processed");
			expect(await store.claim("a\u0000d", 60_000, "b")).toBe("claimed");
			await store.release("a\u0000d", "b");
			expect(await store.claim("a\u0000d", 60_000, "c")).toBe("claimed");
		});

		it("a failed run is recorded with its message, error and attempts across processes, released in the same step", async () => {
			const [a, b] = await harness.failing();
			expect(await a.claim("e", 60_000, "a")).toBe("claimed");
			expect(await a.recordFailure("e", "a", { message: '{"m":1}', error: "Error: one", release: true })).toBe(1);
			expect(await b.claim("e", 60_000, "b")).toBe("claimed");
			expect(await b.recordFailure("e", "b", { message: '{"m":2}', error: "TypeError: two", release: true })).toBe(2);
			const record = await a.failedEvent("e");
			expect(record).toEqual({
				eventId: "e",
				message: '{"m":2}',
				error: "TypeError: two",
				attempts: 2,
				firstFailedAt: expect.any(Number),
				lastFailedAt: expect.any(Number),
			});
			expect(record?.lastFailedAt).toBeGreaterThanOrEqual(record?.firstFailedAt ?? Number.POSITIVE_INFINITY);
			expect(await b.claim("e", 60_000, "c")).toBe("claimed");
		});

		it("lastFailedAt is the latest failure's time, firstFailedAt the first's", async () => {
			const [a, b] = await harness.failing();
			await a.recordFailure("e", undefined, { message: "m", error: "one", release: true });
			const first = await b.failedEvent("e");
			expect(first?.lastFailedAt).toBe(first?.firstFailedAt);
			await harness.pass(30);
			await b.recordFailure("e", undefined, { message: "m", error: "two", release: true });
			const second = await a.failedEvent("e");
			expect(second?.firstFailedAt).toBe(first?.firstFailedAt);
			// At least the 30 ms that passed (a store's clock counts whole milliseconds).
			expect((second?.lastFailedAt ?? 0) - (first?.firstFailedAt ?? 0)).toBeGreaterThanOrEqual(29);
			const [listed] = (await a.listFailedEvents({ limit: 1 })).records;
			expect(listed).toMatchObject({ firstFailedAt: first?.firstFailedAt, lastFailedAt: second?.lastFailedAt });
		});

		it("a worker whose lease ran out records its failure without releasing the claim another worker now holds", async () => {
			const [a, b] = await harness.failing();
			expect(await a.claim("e", 50, "late")).toBe("claimed");
			await eventually(harness, async () => await b.claim("e", 60_000, "live"), "claimed");
			expect(await a.recordFailure("e", "late", { message: "m", error: "late", release: true })).toBe(1);
			expect(await a.claim("e", 60_000, "third")).toBe("in_progress");
			expect(await b.confirm("e", "live")).toBe("confirmed");
			expect(await a.failedEvent("e")).toBeUndefined();
		});

		it("a failure recorded without a token releases the claim made without one (the absent token is one)", async () => {
			const [a, b] = await harness.failing();
			expect(await a.claim("e", 60_000)).toBe("claimed");
			expect(await a.recordFailure("e", undefined, { message: "m", error: "one", release: true })).toBe(1);
			expect(await b.claim("e", 60_000, "b")).toBe("claimed");
		});

		it("a failure recorded with an empty message (a run that had none) keeps the message recorded before", async () => {
			const [a, b] = await harness.failing();
			await a.recordFailure("e", undefined, { message: '{"signed":"x"}', error: "one", release: true });
			expect(await b.recordFailure("e", undefined, { message: "", error: "two", release: true })).toBe(2);
			expect(await a.failedEvent("e")).toMatchObject({ message: '{"signed":"x"}', error: "two", attempts: 2 });
			await b.recordFailure("new", undefined, { message: "", error: "only", release: true });
			expect(await a.failedEvent("new")).toMatchObject({ message: "", attempts: 1 });
			await b.recordFailure("new", undefined, { message: "later", error: "again", release: true });
			expect(await a.failedEvent("new")).toMatchObject({ message: "later", attempts: 2 });
		});

		it("release: false keeps the claim (the callback may still run); a confirm clears the record", async () => {
			const [a, b] = await harness.failing();
			expect(await a.claim("e", 60_000, "a")).toBe("claimed");
			expect(await a.recordFailure("e", "a", { message: "m", error: "timed out", release: false })).toBe(1);
			expect(await b.claim("e", 60_000, "b")).toBe("in_progress");
			expect((await b.failedEvent("e"))?.attempts).toBe(1);
			expect(await a.confirm("e", "a")).toBe("confirmed");
			expect(await b.failedEvent("e")).toBeUndefined();
			expect((await b.listFailedEvents({ limit: 10 })).records).toEqual([]);
			expect(await b.claim("e", 60_000, "b")).toBe("processed");
		});

		it("a plain release keeps the record; a later successful run (a lost lease's confirm too) clears it", async () => {
			const [a, b] = await harness.failing();
			for (const id of ["own", "lost"]) {
				expect(await a.claim(id, 60_000, "a")).toBe("claimed");
				expect(await a.recordFailure(id, "a", { message: "m", error: "e", release: true })).toBe(1);
				expect(await b.claim(id, 60_000, "b")).toBe("claimed");
				await b.release(id, "b");
				expect((await a.failedEvent(id))?.attempts).toBe(1);
				expect(await b.claim(id, 60_000, "c")).toBe("claimed");
			}
			expect(await a.confirm("own", "c")).toBe("confirmed");
			expect(await a.confirm("lost", "someone-else")).toBe("lease_lost");
			expect(await b.failedEvent("own")).toBeUndefined();
			expect(await b.failedEvent("lost")).toBeUndefined();
		});

		it("a processed event gets no record: recordFailure answers 0", async () => {
			const [a] = await harness.failing();
			expect(await a.claim("e", 60_000, "a")).toBe("claimed");
			expect(await a.confirm("e", "a")).toBe("confirmed");
			expect(await a.recordFailure("e", "late", { message: "m", error: "e", release: true })).toBe(0);
			expect(await a.failedEvent("e")).toBeUndefined();
			expect(await a.claim("e", 60_000, "b")).toBe("processed");
		});

		it("lists in the order of first failure, page by page, each event once; a later failure does not move it", async () => {
			const [a, b] = await harness.failing();
			const ids = ["e1", "e2", "e3", "e4", "e5"];
			for (const id of ids) await a.recordFailure(id, undefined, { message: id, error: "x", release: true });
			expect(await b.recordFailure("e2", undefined, { message: "e2 again", error: "y", release: true })).toBe(2);
			const pages: string[][] = [];
			let after: string | undefined;
			do {
				const page = await b.listFailedEvents({ limit: 2, after });
				pages.push(page.records.map((record) => record.eventId));
				after = page.next;
			} while (after !== undefined);
			expect(pages).toEqual([["e1", "e2"], ["e3", "e4"], ["e5"]]);
			const all = await a.listFailedEvents({ limit: 5 });
			expect(all.next).toBeUndefined();
			expect(all.records.map((record) => [record.eventId, record.attempts, record.message])).toEqual([
				["e1", 1, "e1"],
				["e2", 2, "e2 again"],
				["e3", 1, "e3"],
				["e4", 1, "e4"],
				["e5", 1, "e5"],
			]);
			// A page's cursor stays good when its last event is cleared meanwhile.
			const first = await a.listFailedEvents({ limit: 2 });
			expect(await a.discardFailedEvent("e2")).toBe(true);
			const rest = await a.listFailedEvents({ limit: 10, after: first.next });
			expect(rest.records.map((record) => record.eventId)).toEqual(["e3", "e4", "e5"]);
			await expect(async () => await a.listFailedEvents({ limit: 1, after: "not-a-cursor" })).rejects.toThrow(
				ConfigurationError,
			);
		});

		it("a page's cursor with a character added before or after it is refused, naming after", async () => {
			const [a] = await harness.failing();
			for (const id of ["c1", "c2", "c3"])
				await a.recordFailure(id, undefined, { message: id, error: "x", release: true });
			const { next } = await a.listFailedEvents({ limit: 1 });
			expect(next).toBeDefined();
			for (const after of [`x${next}`, `${next}x`, ` ${next}`, `${next}\n`]) {
				const listing = async () => await a.listFailedEvents({ limit: 1, after });
				await expect(listing, JSON.stringify(after)).rejects.toThrow(
					"Invalid failed-event list options: after: must be the next of a page this store returned",
				);
			}
			const rest = await a.listFailedEvents({ limit: 5, after: next });
			expect(rest.records.map((record) => record.eventId)).toEqual(["c2", "c3"]);
		});

		it("discard deletes the record without running the event; a held claim stays held", async () => {
			const [a, b] = await harness.failing();
			await a.recordFailure("idle", undefined, { message: "m", error: "e", release: true });
			expect(await a.claim("held", 60_000, "a")).toBe("claimed");
			await a.recordFailure("held", "a", { message: "m", error: "e", release: false });
			expect(await b.discardFailedEvent("idle")).toBe(true);
			expect(await b.discardFailedEvent("idle")).toBe(false);
			expect(await b.discardFailedEvent("held")).toBe(true);
			expect(await b.discardFailedEvent("never")).toBe(false);
			expect((await a.listFailedEvents({ limit: 10 })).records).toEqual([]);
			expect(await b.claim("held", 60_000, "b")).toBe("in_progress");
			expect(await b.claim("idle", 60_000, "b")).toBe("claimed");
		});

		it("failed events keep any id exactly: a NUL, 4,000 characters, other scripts", async () => {
			const [a, b] = await harness.failing();
			const ids = ["a\u0000b", "x".repeat(4000), "transaction:ünïcødé-支付:failed"];
			for (const id of ids) await a.recordFailure(id, undefined, { message: "m", error: "e", release: true });
			const listed = (await b.listFailedEvents({ limit: 10 })).records.map((record) => record.eventId);
			expect(listed).toEqual(ids);
			for (const id of ids) expect((await b.failedEvent(id))?.eventId).toBe(id);
			expect(await b.failedEvent("a\u0000c")).toBeUndefined();
		});

		it("20 concurrent failures of one event count 20 attempts", async () => {
			const [a, b] = await harness.failing();
			const counts = await Promise.all(
				Array.from({ length: 20 }, (_, i) =>
					(i % 2 ? a : b).recordFailure("e", `t${i}`, { message: "m", error: `e${i}`, release: false }),
				),
			);
			expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
			expect((await a.failedEvent("e"))?.attempts).toBe(20);
		});

		it("100 concurrent claims of one event: exactly one wins", async () => {
			const store = harness.make();
			const results = await Promise.all(Array.from({ length: 100 }, (_, i) => store.claim("e", 60_000, `token-${i}`)));
			expect(results.filter((r) => r === "claimed")).toHaveLength(1);
			expect(results.filter((r) => r === "in_progress")).toHaveLength(99);
			const winner = `token-${results.indexOf("claimed")}`;
			expect(await store.confirm("e", winner)).toBe("confirmed");
			const after = await Promise.all(Array.from({ length: 100 }, (_, i) => store.claim("e", 60_000, `late-${i}`)));
			expect(new Set(after)).toEqual(new Set(["processed"]));
		});
	});
}

contract("memory", () => {
	let now = 1_000_000;
	return {
		make: (options = {}) => isolated(createMemoryStore({ now: () => now, ...options })),
		pass: async (ms) => {
			now += ms;
		},
		failing: async () => {
			const store = createMemoryStore({ now: () => now });
			return [store, store];
		},
	};
});

const redisOk = redisAvailability();
describe.skipIf(!redisOk.ok)(`Redis stores${redisOk.reason ? ` (${redisOk.reason})` : ""}`, () => {
	let server: RedisServer;
	let nodeRedis: Awaited<ReturnType<typeof connectNodeRedis>>;
	let ioredis: IoRedis;
	beforeAll(async () => {
		server = await startRedis({ appendOnly: false });
		nodeRedis = await connectNodeRedis(server.url);
		ioredis = new IoRedis(server.port, "127.0.0.1");
		await ioredis.ping();
	});
	afterAll(async () => {
		await nodeRedis?.close();
		ioredis?.disconnect();
		await server?.close();
	});
	const real = { pass: sleep };
	const onClient = (client: Parameters<typeof createRedisStore>[0]["client"]): Harness => ({
		...real,
		make: (options) => isolated(createRedisStore({ client, ...options })),
		failing: async () => {
			const keyPrefix = `f${++sequence}:event:`;
			return [createRedisStore({ client, keyPrefix }), createRedisStore({ client, keyPrefix })];
		},
	});
	contract("Redis (node-redis)", () => onClient(nodeRedis));
	contract("Redis (ioredis)", () => onClient(ioredis));
});

const postgresOk = postgresAvailability();
describe.skipIf(!postgresOk.ok)(`PostgreSQL store${postgresOk.reason ? ` (${postgresOk.reason})` : ""}`, () => {
	let server: PostgresServer;
	let pool: pg.Pool;
	beforeAll(async () => {
		server = await startPostgres();
		pool = new pg.Pool({ connectionString: server.connectionString, max: 20 });
		await createPostgresStore({ pool }).migrate();
	});
	afterAll(async () => {
		await pool?.end();
		await server?.close();
	});
	const make: Harness["make"] = (options) => isolated(createPostgresStore({ pool, ...options }));
	const failing: Harness["failing"] = async () => {
		const table = `failing_${++sequence}`;
		await createPostgresStore({ pool, table }).migrate();
		return [createPostgresStore({ pool, table }), createPostgresStore({ pool, table, synchronousCommit: false })];
	};
	contract("PostgreSQL (pg)", () => ({ pass: sleep, make, failing }));
});
