// What the contract suite cannot see: the table, its times, migrations, cleanup,
// an unreachable database, and the options.
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigurationError, NotificationStoreError } from "../../src/index.js";
import { createPostgresStore, postgresStoreSchema } from "../../src/stores/postgres.js";
import { freePort, type PostgresServer, postgresAvailability, startPostgres } from "../support/real-servers.js";

const DAY = 24 * 3600 * 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

it("the README shows the exact SQL that migrate() runs", () => {
	const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
	expect(readme).toContain(postgresStoreSchema());
});

it("postgresStoreSchema and createPostgresStore refuse table names that are not plain identifiers", () => {
	expect(() => postgresStoreSchema('events"; DROP TABLE orders; --')).toThrow(ConfigurationError);
	const pool = { query: async () => ({ rows: [], rowCount: 0 }) };
	for (const table of ["1events", "a.b.c", "", "events-x", "x".repeat(64)]) {
		expect(() => createPostgresStore({ pool, table })).toThrow(/table: must be a name of letters, digits and _/);
	}
	const rules = /pool: must be a pg Pool.*ttlMs: must be an integer from 1 to 2147483647/;
	expect(() => createPostgresStore({ pool: {} as never, ttlMs: -1 })).toThrow(rules);
});

it("an unreachable database: every call fails with NotificationStoreError", async () => {
	const connectionString = `postgresql://postgres@127.0.0.1:${await freePort()}/postgres`;
	const pool = new pg.Pool({ connectionString, connectionTimeoutMillis: 2000 });
	try {
		const error = await createPostgresStore({ pool })
			.claim("e", 60_000, "x")
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NotificationStoreError);
		expect((error as Error).message).toMatch(/^PostgreSQL: /);
	} finally {
		await pool.end();
	}
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
		expect(rows[0].n).toBe(2);
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
});
