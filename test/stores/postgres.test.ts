// What the contract suite cannot see: the table, its times, migrations, cleanup,
// an unreachable database, and the options.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError, NotificationStoreError } from "../../src/index.js";
import { createPostgresStore, postgresStoreSchema } from "../../src/stores/postgres.js";
import { freePort, type PostgresServer, postgresAvailability, startPostgres } from "../support/real-servers.js";

const DAY = 24 * 3600 * 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

it("the notifications guide shows the exact SQL that migrate() creates the table with", () => {
	const guide = readFileSync(new URL("../../docs/notifications.md", import.meta.url), "utf8");
	expect(guide).toContain(postgresStoreSchema());
});

it("postgresStoreSchema and createPostgresStore refuse table names that are not plain identifiers", () => {
	expect(() => postgresStoreSchema('events"; DROP TABLE orders; --')).toThrow(ConfigurationError);
	const pool = { query: async () => ({ rows: [], rowCount: 0 }) };
	for (const table of ["1events", "a.b.c", "", "events-x", "x".repeat(64)]) {
		expect(() => createPostgresStore({ pool, table })).toThrow(/table: must be a name of letters, digits and _/);
	}
	const rules =
		/^Invalid PostgreSQL store options: pool: must be a pg Pool.*ttlMs: must be an integer from 1 to 2147483647/;
	expect(() => createPostgresStore({ pool: {} as never, ttlMs: -1 })).toThrow(rules);
});

it("postgresStoreSchema names the table option and its rule when it refuses a table name", () => {
	expect(() => postgresStoreSchema("events-x")).toThrow(
		"Invalid table name: table: must be a name of letters, digits and _ (not a digit first, at most 63), maybe " +
			"schema-qualified",
	);
});

it("a schema-qualified table name is refused when either part is not a plain identifier", () => {
	const pool = { query: async () => ({ rows: [], rowCount: 0 }) };
	for (const table of ["billing.events-x", "9billing.events", "billing.", ".events"]) {
		expect(() => createPostgresStore({ pool, table }), table).toThrow(/table: must be a name of letters/);
		expect(() => postgresStoreSchema(table), table).toThrow(ConfigurationError);
	}
});

it("a table name that is not a string is refused as a table name, not failed on", () => {
	const pool = { query: async () => ({ rows: [], rowCount: 0 }) };
	for (const table of [5, ["events"], { toString: () => "events" }] as never[]) {
		expect(() => createPostgresStore({ pool, table })).toThrow(/^Invalid PostgreSQL store options: table: must be/);
		expect(() => postgresStoreSchema(table)).toThrow(/^Invalid table name: table: must be/);
	}
});

it("options without a pool are refused naming pool and its rule", () => {
	for (const options of [{}, { pool: undefined }, { pool: null }] as never[]) {
		expect(() => createPostgresStore(options)).toThrow(
			"Invalid PostgreSQL store options: pool: must be a pg Pool (an object with a query method)",
		);
	}
});

it("an unreachable database: every call fails with NotificationStoreError", async () => {
	const connectionString = `postgresql://postgres@127.0.0.1:${await freePort()}/postgres`;
	const pool = new pg.Pool({ connectionString, connectionTimeoutMillis: 2000 });
	try {
		const error = await createPostgresStore({ pool })
			.claim("e", 60_000, "x")
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NotificationStoreError);
		// The driver's words, with no advice to migrate: the table is not what is missing.
		expect((error as Error).message).toMatch(/^PostgreSQL: .*ECONNREFUSED.*\.$/s);
		expect((error as Error).message).not.toContain("migrate");
		expect((error as Error).cause).toBeInstanceOf(Error);
	} finally {
		await pool.end();
	}
});

it("a pool that fails with nothing (no error object) still fails with NotificationStoreError", async () => {
	const pool = { query: () => Promise.reject(undefined) };
	await expect(createPostgresStore({ pool }).claim("e", 60_000, "x")).rejects.toBeInstanceOf(NotificationStoreError);
});

it.each([
	["no row", [], "undefined"],
	["another word", [{ result: "OK" }], "OK"],
])("a claim statement answering %s (a proxy in between) is a NotificationStoreError", async (_, rows, shown) => {
	const pool = { query: async () => ({ rows, rowCount: rows.length }) };
	await expect(createPostgresStore({ pool }).claim("e", 60_000, "x")).rejects.toThrow(
		new NotificationStoreError(`PostgreSQL: the claim statement answered ${shown}.`),
	);
});

it("cleanup refuses a batchSize that is not a positive integer, naming its options", async () => {
	const pool = { query: async () => ({ rows: [], rowCount: 0 }) };
	await expect(createPostgresStore({ pool }).cleanup({ batchSize: 0 })).rejects.toThrow(
		/^Invalid cleanup options: batchSize: /,
	);
});

const available = postgresAvailability();
const skipReason = available.reason ? ` (${available.reason})` : "";
describe.skipIf(!available.ok)(`createPostgresStore on a real PostgreSQL${skipReason}`, () => {
	let server: PostgresServer;
	let pool: pg.Pool;
	beforeAll(async () => {
		server = await startPostgres();
		pool = new pg.Pool({ connectionString: server.connectionString, max: 10 });
	});
	afterAll(async () => {
		await pool?.end();
		await server?.close();
	});

	/** Seconds from the server's now() to the row's expires_at. */
	async function secondsLeft(table: string, eventId: string): Promise<number> {
		const left = "extract(epoch FROM expires_at - now())";
		const { rows } = await pool.query(`SELECT ${left} AS left FROM ${table} WHERE event_id = $1`, [eventId]);
		return Number(rows[0]?.left);
	}

	it("a table that does not exist: NotificationStoreError saying to migrate", async () => {
		const error = await createPostgresStore({ pool, table: "never_migrated" })
			.claim("e", 60_000, "x")
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NotificationStoreError);
		expect((error as Error).message).toContain("await store.migrate()");
	});

	it("migrate() creates the table once, also when four instances run it at the same moment", async () => {
		const stores = Array.from({ length: 4 }, () => createPostgresStore({ pool, table: "concurrent_migration" }));
		await Promise.all(stores.map((store) => store.migrate()));
		await stores[0]?.migrate();
		const indexes = "SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = $1";
		const { rows } = await pool.query(indexes, ["concurrent_migration"]);
		expect(rows[0].n).toBe(3);
		expect(await stores[1]?.claim("e", 60_000, "x")).toBe("claimed");
	});

	it("a schema-qualified table works", async () => {
		await pool.query("CREATE SCHEMA IF NOT EXISTS billing");
		const store = createPostgresStore({ pool, table: "billing.ipn_events" });
		await store.migrate();
		expect(await store.claim("e", 60_000, "x")).toBe("claimed");
		const { rows } = await pool.query("SELECT state, token FROM billing.ipn_events WHERE event_id = 'e'");
		expect(rows).toEqual([{ state: "processing", token: "x" }]);
	});

	it("two tables whose names share a long prefix each get their own expires_at index", async () => {
		const prefix = "merchant_gateway_events_of_the_shop_with_a_long_name_";
		const tables = [`${prefix}eu`, `${prefix}us`];
		for (const table of tables) await createPostgresStore({ pool, table }).migrate();
		const onExpiresAt = "SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%(expires_at)'";
		const names: string[] = [];
		for (const table of tables) {
			const { rows } = await pool.query(onExpiresAt, [table]);
			expect(rows, table).toHaveLength(1);
			names.push(rows[0].indexname);
		}
		expect(new Set(names).size).toBe(2);
	});

	it("a table named with the most characters allowed (63) gets its own two indexes", async () => {
		const prefix = "merchant_gateway_events_of_the_shop_with_the_longest_name_of_";
		const tables = [`${prefix}eu`, `${prefix}us`];
		for (const table of tables) {
			expect(table).toHaveLength(63);
			await createPostgresStore({ pool, table }).migrate();
		}
		const onColumn = "SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE $2";
		const names: string[] = [];
		for (const table of tables) {
			for (const columns of ["%(expires_at)", "%(first_failed_at, event_key) WHERE %"]) {
				const { rows } = await pool.query(onColumn, [table, columns]);
				expect(rows, `${table} ${columns}`).toHaveLength(1);
				names.push(rows[0].indexname);
			}
		}
		expect(new Set(names).size).toBe(4);
	});

	it("migrate() converts a table of the first layout (keyed by event_id text), keeping its rows", async () => {
		await pool.query(`CREATE TABLE first_layout (
  event_id   text        PRIMARY KEY,
  state      text        NOT NULL CHECK (state IN ('processing', 'done')),
  token      text        NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX first_layout_expires_at_idx ON first_layout (expires_at);
INSERT INTO first_layout VALUES
  ('transaction:01k0done:successful', 'done', 'a', now() + interval '1 day'),
  ('transaction:01k0held:successful', 'processing', 'b', now() + interval '1 hour');`);
		const store = createPostgresStore({ pool, table: "first_layout" });
		const before = await store.claim("transaction:01k0done:successful", 60_000, "x").catch((e: unknown) => e);
		expect(before).toBeInstanceOf(NotificationStoreError);
		expect((before as Error).message).toContain("await store.migrate()");
		await Promise.all([store.migrate(), store.migrate()]);
		await store.migrate();
		expect(await store.claim("transaction:01k0done:successful", 60_000, "x")).toBe("processed");
		expect(await store.claim("transaction:01k0held:successful", 60_000, "x")).toBe("in_progress");
		expect(await store.confirm("transaction:01k0held:successful", "b")).toBe("confirmed");
		expect(await store.claim("a\u0000b", 60_000, "x")).toBe("claimed");
		const { rows } = await pool.query("SELECT indexname FROM pg_indexes WHERE tablename = 'first_layout'");
		expect(rows.map((row) => row.indexname).sort()).toEqual([
			expect.stringMatching(/^first_layout_[0-9a-f]{16}_expires_at$/),
			expect.stringMatching(/^first_layout_[0-9a-f]{16}_failed$/),
			"first_layout_pkey",
		]);
	});

	it("the event id is stored as its SHA-256 key and, for reading, as text with a NUL shown as U+FFFD", async () => {
		const store = createPostgresStore({ pool, table: "readable" });
		await store.migrate();
		await store.claim("refund:01k0\u0000x:refund_successful", 60_000, "x");
		const { rows } = await pool.query("SELECT encode(event_key, 'hex') AS key, event_id FROM readable");
		const key = createHash("sha256").update("refund:01k0\u0000x:refund_successful").digest("hex");
		expect(rows).toEqual([{ key, event_id: "refund:01k0\uFFFDx:refund_successful" }]);
	});

	it("expires_at is the lease's end while claimed, the retention's end once done, in the server's time", async () => {
		const store = createPostgresStore({ pool, table: "times", ttlMs: 3 * DAY });
		await store.migrate();
		await store.claim("e", 60_000, "x");
		const lease = await secondsLeft("times", "e");
		expect(lease).toBeGreaterThan(30);
		expect(lease).toBeLessThanOrEqual(60);
		await store.confirm("e", "x");
		const retention = await secondsLeft("times", "e");
		expect(retention).toBeGreaterThan((3 * DAY) / 1000 - 60);
		expect(retention).toBeLessThanOrEqual((3 * DAY) / 1000);
	});

	it("cleanup() deletes only rows whose lease or retention ended, in batches, and changes no answer", async () => {
		const short = createPostgresStore({ pool, table: "cleanup", ttlMs: 1 });
		const store = createPostgresStore({ pool, table: "cleanup" });
		await store.migrate();
		await short.claim("old-done", 60_000, "a");
		await short.confirm("old-done", "a");
		await store.claim("crashed", 1, "b");
		await store.claim("crashed-2", 1, "b");
		await store.claim("live-claim", 60_000, "c");
		await store.claim("live-done", 60_000, "d");
		await store.confirm("live-done", "d");
		// Wait (without a deadline that could be too short) until the three short-lived rows have ended.
		for (;;) {
			const { rows } = await pool.query("SELECT count(*)::int AS n FROM cleanup WHERE expires_at <= now()");
			if (rows[0].n === 3) break;
			await sleep(20);
		}
		expect(await store.cleanup({ batchSize: 2 })).toBe(3);
		const { rows } = await pool.query("SELECT event_id FROM cleanup ORDER BY event_id");
		expect(rows.map((row) => row.event_id)).toEqual(["live-claim", "live-done"]);
		expect(await store.claim("live-claim", 60_000, "z")).toBe("in_progress");
		expect(await store.claim("live-done", 60_000, "z")).toBe("processed");
		expect(await store.claim("crashed", 60_000, "z")).toBe("claimed");
		expect(await store.cleanup()).toBe(0);
		await expect(store.cleanup({ batchSize: 0 })).rejects.toThrow(ConfigurationError);
	});

	it("cleanup() keeps a failed event's row, whose lease ended, until a run succeeds", async () => {
		const store = createPostgresStore({ pool, table: "cleanup_failed" });
		await store.migrate();
		expect(await store.claim("failed", 60_000, "a")).toBe("claimed");
		expect(await store.recordFailure("failed", "a", { message: "m", error: "e", release: true })).toBe(1);
		expect(await store.cleanup()).toBe(0);
		expect((await store.failedEvent("failed"))?.attempts).toBe(1);
		expect(await store.claim("failed", 60_000, "b")).toBe("claimed");
		expect(await store.confirm("failed", "b")).toBe("confirmed");
		const { rows } = await pool.query("SELECT failed_attempts, failed_message FROM cleanup_failed");
		expect(rows).toEqual([{ failed_attempts: null, failed_message: null }]);
	});

	it("migrate() adds the failed-event columns to a table made before them, keeping its rows", async () => {
		await pool.query(`CREATE TABLE before_failed (
  event_key  bytea       PRIMARY KEY,
  event_id   text        NOT NULL,
  state      text        NOT NULL CHECK (state IN ('processing', 'done')),
  token      text        NOT NULL,
  expires_at timestamptz NOT NULL
);
INSERT INTO before_failed VALUES
  (sha256('transaction:01k0done:successful'), 'transaction:01k0done:successful', 'done', 'a', now() + interval '1 day');`);
		const store = createPostgresStore({ pool, table: "before_failed" });
		const before = await store.recordFailure("e", "x", { message: "m", error: "e", release: true }).catch((e) => e);
		expect(before).toBeInstanceOf(NotificationStoreError);
		expect((before as Error).message).toContain("await store.migrate()");
		await store.migrate();
		expect(await store.claim("transaction:01k0done:successful", 60_000, "x")).toBe("processed");
		expect(await store.recordFailure("e", "x", { message: "m", error: "e", release: true })).toBe(1);
		expect((await store.listFailedEvents({ limit: 5 })).records.map((record) => record.eventId)).toEqual(["e"]);
	});
});

describe.skipIf(!available.ok)(`synchronousCommit on a durable PostgreSQL${skipReason}`, () => {
	let server: PostgresServer;
	let pool: pg.Pool;
	beforeAll(async () => {
		// fsync on (every synchronous commit flushes the WAL), and a WAL writer that flushes seldom.
		server = await startPostgres({ durable: true, settings: { wal_writer_delay: "10s" } });
		// One connection: the store's statements and the checks below run on the same session.
		pool = new pg.Pool({ connectionString: server.connectionString, max: 1 });
	});
	afterAll(async () => {
		await pool?.end();
		await server?.close();
	});

	/** WAL flushes to disk so far, this session's included. */
	async function walSyncs(): Promise<number> {
		// The session's counters reach the shared statistics when a statement ends after this call.
		await pool.query("SELECT pg_stat_force_next_flush()");
		const { rows } = await pool.query("SELECT wal_sync::int AS n FROM pg_stat_wal");
		return rows[0].n;
	}

	async function syncsFor(store: ReturnType<typeof createPostgresStore>, events: number, tag: string) {
		const before = await walSyncs();
		for (let i = 0; i < events; i++) {
			const id = `${tag}-${i}`;
			expect(await store.claim(id, 60_000, "t")).toBe("claimed");
			expect(await store.confirm(id, "t")).toBe("confirmed");
			if (i % 2 === 0) {
				await store.claim(`${id}-released`, 60_000, "t");
				await store.release(`${id}-released`, "t");
			}
		}
		return (await walSyncs()) - before;
	}

	it("false: the store's commits do not wait for the disk; the default waits for each; the session keeps its own", async () => {
		const durable = createPostgresStore({ pool, table: "durability" });
		const fast = createPostgresStore({ pool, table: "durability", synchronousCommit: false });
		await durable.migrate();
		const events = 60;
		// Each claim and confirm of the default store is a commit that flushes (and half the events add two more).
		expect(await syncsFor(durable, events, "durable")).toBeGreaterThanOrEqual(2 * events);
		// Asynchronous commits leave the flushing to the WAL writer, which here waits 10 s between rounds.
		expect(await syncsFor(fast, events, "fast")).toBeLessThan(events / 4);
		// SET LOCAL lasted for the store's own transactions only: the pool's session is as it was.
		const { rows } = await pool.query("SHOW synchronous_commit");
		expect(rows[0].synchronous_commit).toBe("on");
		// A confirm after a lost lease (the INSERT form) and a claim answered "processed" work in both modes.
		for (const store of [durable, fast]) {
			expect(await store.confirm(`lost-${store === fast}`, "t")).toBe("lease_lost");
			expect(await store.claim(`lost-${store === fast}`, 60_000, "u")).toBe("processed");
		}
	});

	it("false: a confirm after a lost lease, a failure record and a discard do not wait for the disk", async () => {
		const durable = createPostgresStore({ pool, table: "durability_records" });
		const fast = createPostgresStore({ pool, table: "durability_records", synchronousCommit: false });
		await durable.migrate();
		const events = 40;
		const syncsFor = async (store: ReturnType<typeof createPostgresStore>, tag: string) => {
			const before = await walSyncs();
			for (let i = 0; i < events; i++) {
				const id = `${tag}-${i}`;
				expect(await store.confirm(`${id}-lost`, "t")).toBe("lease_lost");
				expect(await store.recordFailure(id, undefined, { message: "m", error: "e", release: true })).toBe(1);
				expect(await store.discardFailedEvent(id)).toBe(true);
			}
			return (await walSyncs()) - before;
		};
		// Each of the three is a commit that flushes in the default store...
		expect(await syncsFor(durable, "durable")).toBeGreaterThanOrEqual(3 * events);
		// ...and none waits for the disk with asynchronous commits (the WAL writer waits 10 s between rounds).
		expect(await syncsFor(fast, "fast")).toBeLessThan(events / 4);
	});

	it("refuses a synchronousCommit that is not a boolean", () => {
		const options = { pool, synchronousCommit: "off" as never };
		expect(() => createPostgresStore(options)).toThrow(/synchronousCommit: must be a boolean/);
	});
});
