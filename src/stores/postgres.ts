/**
 * The `NotificationStore` over PostgreSQL, shared by every instance of your IPN route. It imports no
 * driver: you pass a `pg` Pool (or anything with its `query`).
 * @module merchant-gateway/stores/postgres
 */
import { createHash } from "node:crypto";
import { ConfigurationError } from "../errors/configuration-error.js";
import { NotificationStoreError } from "../errors/notification-store-error.js";
import type { ClaimResult, ConfirmResult, NotificationStore } from "../notifications/store.js";
import { DEFAULT_TTL_MS, driverMessage, OptionIssues } from "./options.js";

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
	 * How long a processed event's done marker counts, in milliseconds; `cleanup()` deletes it after that.
	 * @default 604_800_000 (7 days)
	 */
	ttlMs?: number | undefined;
}

/** Options of `cleanup`. */
export interface CleanupOptions {
	/** Rows deleted per statement, so a large backlog never holds locks for long. @default 1000 */
	batchSize?: number | undefined;
}

/** The PostgreSQL store: a `NotificationStore` plus the table's upkeep. */
export interface PostgresStore extends NotificationStore {
	/** Takes the event for `leaseMs`, unless it was processed or someone else holds it. */
	claim(eventId: string, leaseMs: number, token?: string): Promise<ClaimResult>;
	/** Marks the claimed event processed for good. */
	confirm(eventId: string, token?: string): Promise<ConfirmResult>;
	/** Forgets the caller's claim, so the next delivery processes the event again. */
	release(eventId: string, token?: string): Promise<void>;
	/** Creates the table and its index if absent (`postgresStoreSchema`'s SQL); safe from every instance at once. */
	migrate(): Promise<void>;
	/**
	 * Deletes rows whose lease or retention has ended: done markers older than
	 * `ttlMs` and claims of processes that died. Such rows already count as absent,
	 * so this changes no answer; run it daily (cron, pg_cron). Returns the rows deleted.
	 */
	cleanup(options?: CleanupOptions): Promise<number>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const DEFAULT_TABLE = "merchant_gateway_events";
const TABLE_RULE = "must be a name of letters, digits and _ (not a digit first, at most 63), maybe schema-qualified";

function quoted(table: string): { qualified: string; indexName: string } {
	const parts = table.split(".");
	const name = parts[parts.length - 1] as string;
	return { qualified: parts.map((part) => `"${part}"`).join("."), indexName: `"${name.slice(0, 50)}_expires_at_idx"` };
}

function validTable(table: unknown): table is string {
	if (typeof table !== "string") return false;
	const parts = table.split(".");
	return parts.length <= 2 && parts.every((part) => IDENTIFIER.test(part));
}

/**
 * The table the store needs, as SQL (what `store.migrate()` runs, and the README
 * shows). One row per event: `state` is `processing` while claimed (until the lease's
 * end in `expires_at`) and `done` once confirmed (until the retention's end).
 */
export function postgresStoreSchema(table: string = DEFAULT_TABLE): string {
	if (!validTable(table)) throw new ConfigurationError([{ field: "table", message: TABLE_RULE }], "table name");
	const { qualified, indexName } = quoted(table);
	return `CREATE TABLE IF NOT EXISTS ${qualified} (
  event_id   text        PRIMARY KEY,
  state      text        NOT NULL CHECK (state IN ('processing', 'done')),
  token      text        NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS ${indexName} ON ${qualified} (expires_at);`;
}

function statements(table: string) {
	const { qualified: t } = quoted(table);
	// Prepared statement names must stay bound to one text per connection: the table is part of the name.
	const tag = createHash("sha1").update(t).digest("hex").slice(0, 10);
	const until = (param: string) => `now() + ${param}::double precision * interval '1 millisecond'`;
	return {
		// Takes the row when absent, when its lease or retention ended, or when it is this token's own claim
		// (a retried statement). ON CONFLICT makes concurrent claims of one id wait for each other: one wins.
		claim: {
			name: `mg_claim_${tag}`,
			text: `WITH claimed AS (
  INSERT INTO ${t} AS e (event_id, state, token, expires_at) VALUES ($1, 'processing', $2, ${until("$3")})
  ON CONFLICT (event_id) DO UPDATE SET state = 'processing', token = excluded.token, expires_at = excluded.expires_at
  WHERE e.expires_at <= now() OR ($4::boolean AND e.state = 'processing' AND e.token = excluded.token)
  RETURNING 1
)
SELECT CASE WHEN EXISTS (SELECT 1 FROM claimed) THEN 'claimed'
  WHEN (SELECT state FROM ${t} WHERE event_id = $1) = 'done' THEN 'processed'
  ELSE 'in_progress' END AS result`,
		},
		confirmOwn: {
			name: `mg_confirm_${tag}`,
			text: `UPDATE ${t} SET state = 'done', expires_at = ${until("$3")}
WHERE event_id = $1 AND state = 'processing' AND token = $2 AND expires_at > now()`,
		},
		confirmLost: {
			name: `mg_confirm_lost_${tag}`,
			text: `INSERT INTO ${t} AS e (event_id, state, token, expires_at) VALUES ($1, 'done', $2, ${until("$3")})
ON CONFLICT (event_id) DO UPDATE SET state = 'done', token = excluded.token, expires_at = excluded.expires_at`,
		},
		release: {
			name: `mg_release_${tag}`,
			text: `DELETE FROM ${t} WHERE event_id = $1 AND state = 'processing' AND token = $2`,
		},
		cleanup: {
			name: `mg_cleanup_${tag}`,
			text: `DELETE FROM ${t} WHERE event_id IN (SELECT event_id FROM ${t} WHERE expires_at <= now() LIMIT $1)`,
		},
		// One simple-protocol query is one transaction: the advisory lock keeps concurrent migrations apart.
		migrate: `SELECT pg_advisory_xact_lock(hashtext('merchant-gateway:migrate'));\n${postgresStoreSchema(table)}`,
	};
}

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
	const issues = new OptionIssues("PostgreSQL store options");
	const pool = options?.pool;
	if (typeof pool?.query !== "function") issues.add("pool", "must be a pg Pool (an object with a query method)");
	const table = options?.table ?? DEFAULT_TABLE;
	if (!validTable(table)) issues.add("table", TABLE_RULE);
	const ttl = issues.positiveInteger("ttlMs", options?.ttlMs, DEFAULT_TTL_MS);
	issues.done();
	const sql = statements(table);

	async function query(statement: { name: string; text: string } | string, values?: unknown[]) {
		try {
			const query = typeof statement === "string" ? { text: statement } : { ...statement, values: values ?? [] };
			return await pool.query(query);
		} catch (error) {
			const missingTable = (error as { code?: unknown })?.code === "42P01";
			const hint = missingTable ? " Create the table first: await store.migrate()." : "";
			throw new NotificationStoreError(`PostgreSQL: ${driverMessage(error)}.${hint}`, { cause: error });
		}
	}

	return {
		async claim(eventId, leaseMs, token) {
			const { rows } = await query(sql.claim, [eventId, token ?? "", leaseMs, token !== undefined]);
			const result = (rows[0] as { result?: unknown } | undefined)?.result;
			if (result !== "claimed" && result !== "processed" && result !== "in_progress") {
				throw new NotificationStoreError(`PostgreSQL: the claim statement answered ${String(result)}.`);
			}
			return result;
		},
		async confirm(eventId, token) {
			const values = [eventId, token ?? "", ttl];
			if ((await query(sql.confirmOwn, values)).rowCount === 1) return "confirmed";
			await query(sql.confirmLost, values);
			return "lease_lost";
		},
		async release(eventId, token) {
			await query(sql.release, [eventId, token ?? ""]);
		},
		async migrate() {
			await query(sql.migrate);
		},
		async cleanup(cleanupOptions = {}) {
			const cleanupIssues = new OptionIssues("cleanup options");
			const batchSize = cleanupIssues.positiveInteger("batchSize", cleanupOptions.batchSize, 1000);
			cleanupIssues.done();
			let deleted = 0;
			for (;;) {
				const { rowCount } = await query(sql.cleanup, [batchSize]);
				deleted += rowCount ?? 0;
				if ((rowCount ?? 0) < batchSize) return deleted;
			}
		},
	};
}
