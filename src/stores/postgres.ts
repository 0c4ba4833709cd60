/**
 * The `NotificationStore` over PostgreSQL, shared by every instance of your IPN route. It imports no
 * driver: you pass a `pg` Pool (or anything with its `query`).
 * @module merchant-gateway/stores/postgres
 */
import { createHash } from "node:crypto";
import * as z from "zod/mini";
import { ConfigurationError } from "../errors/configuration-error.js";
import { NotificationStoreError } from "../errors/notification-store-error.js";
import { duration, flag, parseOptions, positiveInteger } from "../internal/options.js";
import {
	DEFAULT_TTL_MS,
	type FailedEventRecord,
	invalidCursor,
	type SharedStore,
} from "../notifications/claims/store.js";
import { lazySchema } from "../schemas/lazy.js";
import { driverMessage } from "./driver-message.js";

/** A query as `pg` takes it; `name` makes it a prepared statement, parsed once per connection. */
export interface PgQuery {
	/** The prepared statement's name. */
	name?: string;
	/** The SQL, with `$1`-style parameters. */
	text: string;
	/** The parameters' values. */
	values?: unknown[];
}

/** What the store calls on a `pg` Pool (a `pg` Client works too). */
export interface PgPoolLike {
	/** Runs one statement. */
	query(query: PgQuery): Promise<{
		/** The rows it returned. */
		rows: unknown[];
		/** How many rows it touched. */
		rowCount: number | null;
	}>;
}

/** Options of `createPostgresStore`. */
export interface PostgresStoreOptions {
	/**
	 * A `pg` Pool. The store never ends it. Give it an `error` listener: `pg` emits one when an idle
	 * connection drops.
	 */
	pool: PgPoolLike;
	/**
	 * The table, optionally schema-qualified (`billing.ipn_events`); letters, digits and `_`.
	 * @default "merchant_gateway_events"
	 */
	table?: string | undefined;
	/**
	 * How long a processed event's done marker counts, in milliseconds (at most 2147483647); `cleanup()`
	 * deletes it after that.
	 * @default 604_800_000 (7 days)
	 */
	ttlMs?: number | undefined;
	/**
	 * Whether each claim, confirm and release waits for its commit to reach the disk. `false` commits the
	 * store's own transactions asynchronously (`SET LOCAL synchronous_commit = off`, through `set_config`
	 * in each statement; the pool's other work is untouched), so a claim no longer waits for an fsync. The
	 * trade: if the database server crashes (a power cut, a kill -9: not a clean restart, not your process
	 * dying), the claims and done markers of its last fraction of a second (at most three times the
	 * server's `wal_writer_delay`, 600 ms by default) may be lost, so those events may run your callback
	 * again when the gateway delivers them again, which the idempotent callbacks the handler asks for absorb.
	 * @default true
	 */
	synchronousCommit?: boolean | undefined;
}

/** Options of `cleanup`. */
export interface CleanupOptions {
	/** Rows deleted per statement, so a large backlog never holds locks for long. @default 1000 */
	batchSize?: number | undefined;
}

/** The PostgreSQL store: a `NotificationStore` plus the table's upkeep. */
export interface PostgresStore extends SharedStore {
	/** Creates the table and its index if absent (`postgresStoreSchema`'s SQL); safe from every instance at once. */
	migrate(): Promise<void>;
	/**
	 * Deletes rows whose lease or retention has ended: done markers older than
	 * `ttlMs` and claims of processes that died. Such rows already count as absent,
	 * so this changes no answer; run it daily (cron, pg_cron). Rows of failed events
	 * stay until a run succeeds or they are discarded. Returns the rows deleted.
	 */
	cleanup(options?: CleanupOptions): Promise<number>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const DEFAULT_TABLE = "merchant_gateway_events";
const TABLE_RULE = "must be a name of letters, digits and _ (not a digit first, at most 63), maybe schema-qualified";

function validTable(table: unknown): table is string {
	if (typeof table !== "string") return false;
	const parts = table.split(".");
	return parts.length <= 2 && parts.every((part) => IDENTIFIER.test(part));
}

/** The table's names as SQL: quoted, as a string literal, and the name of its index. */
function names(table: string) {
	const parts = table.split(".");
	const relation = parts[parts.length - 1] as string;
	const qualified = parts.map((part) => `"${part}"`).join(".");
	// The table's own name, cut to fit PostgreSQL's 63 bytes, and a digest of all of it: two tables of
	// one schema (where index names must differ) never share an index name, whatever prefix they share.
	const digest = createHash("sha256").update(relation, "utf8").digest("hex");
	const indexStem = `"${relation.slice(0, 32)}_${digest.slice(0, 16)}`;
	return {
		qualified,
		literal: `'${qualified}'`,
		indexName: `${indexStem}_expires_at"`,
		failedIndexName: `${indexStem}_failed"`,
	};
}

/** A failed event's record: its columns and their types, NULL in the row of an event that has none. */
const FAILED_COLUMNS = [
	["failed_event_id", "bytea"],
	["failed_attempts", "integer"],
	["failed_message", "text"],
	["failed_error", "text"],
	["first_failed_at", "timestamptz"],
	["last_failed_at", "timestamptz"],
] as const;

/**
 * The table the store needs, as SQL (what `store.migrate()` runs after converting a table of an
 * earlier layout, and what the README shows). One row per event, keyed by `event_key`, the SHA-256 of
 * the event id: a fixed 32 bytes, so any id can be stored, however long or whatever it holds (a
 * NUL, which `text` refuses). `event_id` keeps the id for people reading the table (a NUL shown as
 * U+FFFD). `state` is `processing` while claimed (until the lease's end in `expires_at`) and `done`
 * once confirmed (until the retention's end). The `failed_` columns hold a failed event's record (NULL
 * otherwise): the exact id as UTF-8, the attempts, the delivery's signed message and the last error.
 */
export function postgresStoreSchema(table: string = DEFAULT_TABLE): string {
	if (!validTable(table)) throw new ConfigurationError([{ field: "table", message: TABLE_RULE }], "table name");
	const { qualified, indexName, failedIndexName } = names(table);
	return `CREATE TABLE IF NOT EXISTS ${qualified} (
  event_key       bytea       PRIMARY KEY,
  event_id        text        NOT NULL,
  state           text        NOT NULL CHECK (state IN ('processing', 'done')),
  token           text        NOT NULL,
  expires_at      timestamptz NOT NULL,
${FAILED_COLUMNS.map(([column, type]) => `  ${column.padEnd(16)}${type}`).join(",\n")}
);
CREATE INDEX IF NOT EXISTS ${indexName} ON ${qualified} (expires_at);
CREATE INDEX IF NOT EXISTS ${failedIndexName} ON ${qualified} (first_failed_at, event_key)
  WHERE failed_attempts IS NOT NULL;`;
}

/** The failed-event columns, added to a table made before they existed (before its index is made). */
function failedColumnsSql(table: string): string {
	const { qualified, literal } = names(table);
	const columns = FAILED_COLUMNS.map(([column, type]) => `ADD COLUMN IF NOT EXISTS ${column} ${type}`);
	return `DO $failed$
BEGIN
  IF to_regclass(${literal}) IS NOT NULL THEN
    ALTER TABLE ${qualified} ${columns.join(", ")};
  END IF;
END
$failed$;`;
}

/**
 * Converts a table of the first layout (`event_id text PRIMARY KEY`, which refused ids with a NUL or
 * too long for its index) to the digest key, keeping its rows; does nothing to any other table. Needs
 * PostgreSQL 11 or later (`sha256`). Its `expires_at` index, whose name another table could share, is
 * dropped for the schema's own.
 */
function upgradeSql(table: string): string {
	const { literal } = names(table);
	return `DO $upgrade$
DECLARE
  rel regclass := to_regclass(${literal});
  old_index regclass;
BEGIN
  IF rel IS NULL OR EXISTS (
    SELECT 1 FROM pg_attribute WHERE attrelid = rel AND attname = 'event_key' AND NOT attisdropped
  ) THEN
    RETURN;
  END IF;
  EXECUTE format('ALTER TABLE %s ADD COLUMN event_key bytea', rel);
  EXECUTE format('UPDATE %s SET event_key = sha256(convert_to(event_id, ''UTF8''))', rel);
  EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', rel,
    (SELECT conname FROM pg_constraint WHERE conrelid = rel AND contype = 'p'));
  EXECUTE format('ALTER TABLE %s ADD PRIMARY KEY (event_key)', rel);
  FOR old_index IN
    SELECT i.indexrelid::regclass FROM pg_index i
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
    WHERE i.indrelid = rel AND i.indnatts = 1 AND a.attname = 'expires_at'
  LOOP
    EXECUTE format('DROP INDEX %s', old_index);
  END LOOP;
END
$upgrade$;`;
}

/** A prepared statement: its name is bound to its text (one text per name and connection), so it names the text. */
function prepared(step: string, text: string): PgQuery & { name: string } {
	return { name: `mg_${step}_${createHash("sha1").update(text).digest("hex").slice(0, 12)}`, text };
}

function statements(table: string, synchronousCommit: boolean) {
	const { qualified: t } = names(table);
	const until = (param: string) => `now() + ${param}::double precision * interval '1 millisecond'`;
	// set_config(..., true) is SET LOCAL as a function: it lasts until the statement's own transaction
	// commits, which is when synchronous_commit is read. Joined into the statement so it is evaluated.
	const asyncCommit = "async_commit AS (SELECT set_config('synchronous_commit', 'off', true))";
	const withAsync = synchronousCommit ? "" : `WITH ${asyncCommit}\n`;
	const joinAsync = (keyword: string) => (synchronousCommit ? "" : ` ${keyword} async_commit`);
	const withAlso = (cte: string) => `WITH ${synchronousCommit ? "" : `${asyncCommit},\n`}${cte}`;
	const noFailure = FAILED_COLUMNS.map(([column]) => `${column} = NULL`).join(", ");
	const failedColumns =
		"failed_event_id AS id, failed_message AS message, failed_error AS error, failed_attempts AS attempts, " +
		"floor(extract(epoch FROM first_failed_at) * 1000)::float8 AS first, " +
		"floor(extract(epoch FROM last_failed_at) * 1000)::float8 AS last";
	const listed = `SELECT ${failedColumns},
  to_char(first_failed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '/' || encode(event_key, 'hex') AS cursor
FROM ${t} WHERE failed_attempts IS NOT NULL`;
	return {
		// Takes the row when absent, when its lease or retention ended, or when it is this token's own claim
		// (a retried statement). ON CONFLICT makes concurrent claims of one id wait for each other: one wins.
		claim: prepared(
			"claim",
			`${withAlso(`claimed AS (
  INSERT INTO ${t} AS e (event_key, event_id, state, token, expires_at)
  VALUES ($1, $2, 'processing', $3, ${until("$4")})
  ON CONFLICT (event_key) DO UPDATE
  SET state = 'processing', event_id = excluded.event_id, token = excluded.token, expires_at = excluded.expires_at
  WHERE e.expires_at <= now() OR ($5::boolean AND e.state = 'processing' AND e.token = excluded.token)
  RETURNING 1
)`)}
SELECT CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN 'claimed'
  WHEN (SELECT state FROM ${t} WHERE event_key = $1) = 'done' THEN 'processed'
  ELSE 'in_progress' END AS result${joinAsync("FROM")}`,
		),
		// A confirm clears the event's failed record: a successful run ends it.
		confirmOwn: prepared(
			"confirm",
			`${withAsync}UPDATE ${t} SET state = 'done', expires_at = ${until("$3")}, ${noFailure}${joinAsync("FROM")}
WHERE event_key = $1 AND state = 'processing' AND token = $2 AND expires_at > now()`,
		),
		confirmLost: prepared(
			"confirm_lost",
			`${withAsync}INSERT INTO ${t} AS e (event_key, event_id, state, token, expires_at)
SELECT $1::bytea, $2::text, 'done', $3::text, ${until("$4")}${joinAsync("FROM")}
ON CONFLICT (event_key) DO UPDATE
SET state = 'done', event_id = excluded.event_id, token = excluded.token, expires_at = excluded.expires_at, ${noFailure}`,
		),
		// A row with a failed record is not deleted: its lease is ended instead, so the record stays.
		release: prepared(
			"release",
			`${withAlso(`forgotten AS (
  DELETE FROM ${t} WHERE event_key = $1 AND state = 'processing' AND token = $2 AND failed_attempts IS NULL
), ended AS (
  UPDATE ${t} SET expires_at = least(expires_at, now())
  WHERE event_key = $1 AND state = 'processing' AND token = $2 AND failed_attempts IS NOT NULL
)`)}
SELECT 1${joinAsync("FROM")}`,
		),
		// One more attempt in the row's record (a done row whose retention ended counts as absent); the claim's
		// lease ends with it when $6 and the token is the caller's. A processed event gets no record: no row.
		recordFailure: prepared(
			"record_failure",
			`${withAsync}INSERT INTO ${t} AS e (event_key, event_id, state, token, expires_at, failed_event_id,
  failed_attempts, failed_message, failed_error, first_failed_at, last_failed_at)
SELECT $1::bytea, $2::text, 'processing', '', now(), $3::bytea, 1, $4::text, $5::text, now(), now()${joinAsync("FROM")}
ON CONFLICT (event_key) DO UPDATE SET
  state = 'processing',
  token = CASE WHEN e.state = 'done' THEN '' ELSE e.token END,
  expires_at = CASE WHEN e.state = 'done' OR ($6::boolean AND e.token = $7::text)
    THEN least(e.expires_at, now()) ELSE e.expires_at END,
  failed_event_id = excluded.failed_event_id,
  failed_attempts = coalesce(e.failed_attempts, 0) + 1,
  failed_message = coalesce(nullif(excluded.failed_message, ''), e.failed_message, ''),
  failed_error = excluded.failed_error,
  first_failed_at = coalesce(e.first_failed_at, now()),
  last_failed_at = now()
WHERE e.state = 'processing' OR e.expires_at <= now()
RETURNING e.failed_attempts AS attempts`,
		),
		failedEvent: prepared(
			"failed_event",
			`SELECT ${failedColumns} FROM ${t} WHERE event_key = $1 AND failed_attempts IS NOT NULL`,
		),
		listFailedFirst: prepared("list_failed_first", `${listed}\nORDER BY first_failed_at, event_key LIMIT $1`),
		listFailedAfter: prepared(
			"list_failed_after",
			`${listed} AND (first_failed_at, event_key) > ($2::timestamptz, decode($3, 'hex'))
ORDER BY first_failed_at, event_key LIMIT $1`,
		),
		discardFailed: prepared(
			"discard_failed",
			`${withAlso(`forgotten AS (
  DELETE FROM ${t} WHERE event_key = $1 AND failed_attempts IS NOT NULL AND expires_at <= now() RETURNING 1
), kept AS (
  UPDATE ${t} SET ${noFailure} WHERE event_key = $1 AND failed_attempts IS NOT NULL AND expires_at > now() RETURNING 1
)`)}
SELECT (SELECT count(*) FROM forgotten) + (SELECT count(*) FROM kept) AS discarded${joinAsync("FROM")}`,
		),
		cleanup: prepared(
			"cleanup",
			`DELETE FROM ${t} WHERE event_key IN (
  SELECT event_key FROM ${t} WHERE expires_at <= now() AND failed_attempts IS NULL LIMIT $1
)`,
		),
		// One simple-protocol query is one transaction: the advisory lock keeps concurrent migrations apart.
		migrate: `SELECT pg_advisory_xact_lock(hashtext('merchant-gateway:migrate'));
${upgradeSql(table)}
${failedColumnsSql(table)}
${postgresStoreSchema(table)}`,
	};
}

/** The id as the table keeps it: its SHA-256 (the key), and its text for people (a NUL as U+FFFD). */
function keyOf(eventId: string): [Buffer, string] {
	const key = createHash("sha256").update(eventId, "utf8").digest();
	return [key, eventId.includes("\0") ? eventId.replaceAll("\0", "\uFFFD") : eventId];
}

/** A failed event's row as the store's statements select it. */
interface FailedRow {
	id: Buffer;
	message: string;
	error: string;
	attempts: number;
	first: number;
	last: number;
	cursor?: string;
}

/** A list cursor: the first failure's time (UTC, microseconds) and the event key, as the statements write them. */
const CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)\/([0-9a-f]{64})$/;

function toRecord(row: FailedRow): FailedEventRecord {
	return {
		eventId: Buffer.from(row.id).toString("utf8"),
		message: row.message,
		error: row.error,
		attempts: Number(row.attempts),
		firstFailedAt: Number(row.first),
		lastFailedAt: Number(row.last),
	};
}

const postgresStoreOptions = lazySchema(() =>
	z.object({
		pool: z.custom<PgPoolLike>(
			(pool) => typeof (pool as Partial<PgPoolLike> | undefined)?.query === "function",
			"must be a pg Pool (an object with a query method)",
		),
		table: z._default(z.custom<string>(validTable, TABLE_RULE), DEFAULT_TABLE),
		ttlMs: duration(DEFAULT_TTL_MS),
		synchronousCommit: flag(true),
	}),
);

const cleanupOptions = lazySchema(() => z.object({ batchSize: positiveInteger(1000) }));

/**
 * A `NotificationStore` on PostgreSQL, shared by every process that uses the
 * same table: each event's callback runs once across the fleet (see the README
 * for the exact guarantee).
 *
 * ```ts
 * import pg from "pg";
 * import { createPostgresStore } from "merchant-gateway/stores/postgres";
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * pool.on("error", (error) => logger.warn(error)); // an idle connection dropped
 * const store = createPostgresStore({ pool });
 * await store.migrate(); // once, or run postgresStoreSchema() in your migrations
 * ```
 *
 * Claims are one `INSERT ... ON CONFLICT DO UPDATE ... WHERE` statement honouring
 * the lease; confirm and release match the event id and the claim's token. Time
 * is the database server's, so the fleet's clocks need not agree. When the
 * database is unreachable every call fails with `NotificationStoreError`.
 *
 * @throws ConfigurationError for a missing pool or bad options.
 */
export function createPostgresStore(options: PostgresStoreOptions): PostgresStore {
	const { pool, ttlMs, ...config } = parseOptions(postgresStoreOptions, options, "PostgreSQL store options");
	const sql = statements(config.table, config.synchronousCommit);

	async function query(statement: { name: string; text: string } | string, values?: unknown[]) {
		try {
			const query = typeof statement === "string" ? { text: statement } : { ...statement, values: values ?? [] };
			return await pool.query(query);
		} catch (error) {
			// An absent table, or one of an earlier layout (no event_key column).
			const code = (error as { code?: unknown })?.code;
			const hint =
				code === "42P01" || code === "42703" ? " Create or upgrade the table first: await store.migrate()." : "";
			throw new NotificationStoreError(`PostgreSQL: ${driverMessage(error)}.${hint}`, { cause: error });
		}
	}

	return {
		async claim(eventId, leaseMs, token) {
			const [key, id] = keyOf(eventId);
			const { rows } = await query(sql.claim, [key, id, token ?? "", leaseMs, token !== undefined]);
			const result = (rows[0] as { result?: unknown } | undefined)?.result;
			if (result !== "claimed" && result !== "processed" && result !== "in_progress") {
				throw new NotificationStoreError(`PostgreSQL: the claim statement answered ${String(result)}.`);
			}
			return result;
		},
		async confirm(eventId, token) {
			const [key, id] = keyOf(eventId);
			if ((await query(sql.confirmOwn, [key, token ?? "", ttlMs])).rowCount === 1) return "confirmed";
			await query(sql.confirmLost, [key, id, token ?? "", ttlMs]);
			return "lease_lost";
		},
		async release(eventId, token) {
			await query(sql.release, [keyOf(eventId)[0], token ?? ""]);
		},
		async recordFailure(eventId, token, failure) {
			const [key, id] = keyOf(eventId);
			const exact = Buffer.from(eventId, "utf8");
			const values = [key, id, exact, failure.message, failure.error, failure.release, token ?? ""];
			const { rows } = await query(sql.recordFailure, values);
			return rows.length === 0 ? 0 : Number((rows[0] as { attempts: unknown }).attempts);
		},
		async failedEvent(eventId) {
			const { rows } = await query(sql.failedEvent, [keyOf(eventId)[0]]);
			return rows.length === 0 ? undefined : toRecord(rows[0] as FailedRow);
		},
		async listFailedEvents({ limit, after }) {
			let rows: unknown[];
			if (after === undefined) {
				rows = (await query(sql.listFailedFirst, [limit + 1])).rows;
			} else {
				const cursor = CURSOR.exec(after);
				if (!cursor) throw invalidCursor();
				rows = (await query(sql.listFailedAfter, [limit + 1, cursor[1], cursor[2]])).rows;
			}
			const records = (rows.slice(0, limit) as FailedRow[]).map(toRecord);
			const next = rows.length > limit ? (rows[limit - 1] as FailedRow).cursor : undefined;
			return { records, next };
		},
		async discardFailedEvent(eventId) {
			const { rows } = await query(sql.discardFailed, [keyOf(eventId)[0]]);
			return Number((rows[0] as { discarded: unknown }).discarded) > 0;
		},
		async migrate() {
			await query(sql.migrate);
		},
		async cleanup(upkeep = {}) {
			const { batchSize } = parseOptions(cleanupOptions, upkeep, "cleanup options");
			let deleted = 0;
			for (;;) {
				const { rowCount } = await query(sql.cleanup, [batchSize]);
				deleted += rowCount ?? 0;
				if ((rowCount ?? 0) < batchSize) return deleted;
			}
		},
	};
}
