// One merchant instance of the fleet tests, run as a child process (bundled by
// fleet.ts): its own IPN handler on its own port and its own reconciler, sharing
// one store (Redis or PostgreSQL) with the other instances. Every callback run
// leaves its side effect in the store's own database, where the test counts them.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { createClient } from "redis";
import {
	createNotificationHandler,
	createReconciler,
	GatewayClient,
	type NotificationContext,
	type NotificationStore,
	type ReconcileReport,
	toNodeListener,
} from "../../src/index.js";
import { createPostgresStore } from "../../src/stores/postgres.js";
import { createRedisStore } from "../../src/stores/redis.js";
import { randomFrom } from "../support/prng.js";

export interface WorkerConfig {
	store: "redis" | "postgres";
	/** Redis URL or PostgreSQL connection string. */
	url: string;
	/** Key prefix (Redis) or table (PostgreSQL) of this test's store, and the prefix of its effect records. */
	namespace: string;
	leaseMs: number;
	gatewayUrl: string;
	gatewayPublicKey: string;
	merchantId: string;
	merchantPrivateKey: string;
	/** This instance's callbacks never finish: it reports the first as "blocked" and waits to be killed. */
	blockFirstCallback: boolean;
	/** Each callback takes up to this long (random), so deliveries overlap. */
	maxCallbackMs: number;
	/** Seeds this instance's random callback times (the fleet gives each instance its own). */
	seed: number;
	/** Callbacks throw (after logging that they started) until a "fix" request. @default false */
	failing?: boolean;
}

type Counted = "processed" | "alreadyProcessed" | "inProgress" | "failed";

/** What the worker tells the test. */
export type WorkerMessage =
	| { type: "ready"; port: number }
	| { type: "blocked"; eventId: string }
	| ({ type: "reconciled"; requestId: number; errors: string[] } & Pick<ReconcileReport, Counted>)
	| { type: "answer"; requestId: number; answer: unknown };

/** What the test asks of the worker besides a reconciliation: answered with an "answer". */
export type WorkerRequest =
	| { type: "fix"; requestId: number }
	| { type: "retry"; requestId: number; eventId: string }
	| { type: "failed"; requestId: number };

/** What the test asks of the worker. */
export interface ReconcileRequest {
	type: "reconcile";
	requestId: number;
	transactions: string[];
}

/** Where a callback's side effect goes: the store's own database. */
interface EffectLog {
	/** The database's clock, in microseconds since the epoch. */
	now(): Promise<number>;
	record(effect: { eventId: string; pid: number; source: string; startedAt: number }): Promise<void>;
	started(eventId: string): Promise<void>;
}

const config = JSON.parse(process.env.FLEET_WORKER_CONFIG ?? "{}") as WorkerConfig;
const send = (message: WorkerMessage) => process.send?.(message);

async function connect(): Promise<{ store: NotificationStore; effects: EffectLog }> {
	if (config.store === "redis") {
		const redis = createClient({ url: config.url });
		redis.on("error", () => {});
		await redis.connect();
		return {
			store: createRedisStore({ client: redis, keyPrefix: `${config.namespace}:event:` }),
			effects: {
				now: async () => {
					const [seconds, micros] = (await redis.sendCommand(["TIME"])) as [string, string];
					return Number(seconds) * 1e6 + Number(micros);
				},
				record: async (effect) => void (await redis.rPush(`${config.namespace}:effects`, JSON.stringify(effect))),
				started: async (eventId) => {
					await redis.rPush(`${config.namespace}:started`, JSON.stringify({ eventId, pid: process.pid }));
				},
			},
		};
	}
	const pool = new pg.Pool({ connectionString: config.url, max: 8 });
	pool.on("error", () => {});
	return {
		store: createPostgresStore({ pool, table: config.namespace }),
		effects: {
			now: async () => {
				const { rows } = await pool.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS now");
				return Number(rows[0].now);
			},
			record: async ({ eventId, pid, source, startedAt }) => {
				const table = `${config.namespace}_effects`;
				const insert = `INSERT INTO ${table} (event_id, pid, source, started_at) VALUES ($1, $2, $3, $4)`;
				await pool.query(insert, [eventId, pid, source, startedAt]);
			},
			started: async (eventId) => {
				await pool.query(`INSERT INTO ${config.namespace}_started (event_id, pid) VALUES ($1, $2)`, [
					eventId,
					process.pid,
				]);
			},
		},
	};
}

const { store, effects } = await connect();
let blocked = false;
const random = randomFrom(config.seed);
let broken = config.failing === true;

async function callback(context: NotificationContext): Promise<void> {
	const startedAt = await effects.now();
	await effects.started(context.eventId);
	if (config.blockFirstCallback) {
		// The doomed instance: every callback it starts stays in the middle, before its side effect, until the
		// kill. (A kill between a side effect and its confirm would run that callback twice, by design: that
		// window is why callbacks must be idempotent, and it is not what this test is about.)
		if (!blocked) send({ type: "blocked", eventId: context.eventId });
		blocked = true;
		await new Promise(() => {});
	}
	if (broken) {
		await new Promise((resolve) => setTimeout(resolve, random() * config.maxCallbackMs));
		throw new Error(`the order database is down (card 4111 1111 1111 1111, in ${process.pid})`);
	}
	await new Promise((resolve) => setTimeout(resolve, random() * config.maxCallbackMs));
	const source = context.reconciled ? "reconciliation" : "ipn";
	await effects.record({ eventId: context.eventId, pid: process.pid, source, startedAt });
}

const options = {
	store,
	leaseMs: config.leaseMs,
	onTransaction: (_transaction: unknown, context: NotificationContext) => callback(context),
	onRefund: (_refund: unknown, context: NotificationContext) => callback(context),
};
const handler = createNotificationHandler({
	gatewayPublicKey: config.gatewayPublicKey,
	...options,
	onError: (error, info) => {
		const { name, message } = error as Error;
		if (info.status === 200) console.error(`fleet worker ${process.pid}: ${name}: ${message}`);
	},
});
const gateway = new GatewayClient({
	baseUrl: config.gatewayUrl,
	merchantId: config.merchantId,
	privateKey: config.merchantPrivateKey,
	gatewayPublicKey: config.gatewayPublicKey,
	allowLoopbackHttp: true,
});
const reconciler = createReconciler({ gateway, ...options, concurrency: 4 });

/** The answers to the test's other requests. */
async function answer(request: WorkerRequest): Promise<unknown> {
	switch (request.type) {
		case "fix":
			broken = false;
			return true;
		case "retry": {
			const { error, ...rest } = await handler.failedEvents.retry(request.eventId);
			return { ...rest, error: error === undefined ? undefined : String((error as Error).message ?? error) };
		}
		case "failed":
			return (await handler.failedEvents.list({ limit: 1000 })).events.map(({ event, ...record }) => ({
				...record,
				type: event?.type,
			}));
	}
}

process.on("message", async (message: ReconcileRequest | WorkerRequest) => {
	if (message?.type !== "reconcile") {
		send({ type: "answer", requestId: message.requestId, answer: await answer(message) });
		return;
	}
	const report = await reconciler.reconcile({ transactions: message.transactions });
	const failures = report.outcomes.filter((o) => o.result === "failed");
	const errors = failures.map((o) => String((o.error as Error)?.message ?? o.error));
	const { processed, alreadyProcessed, inProgress, failed } = report;
	send({ type: "reconciled", requestId: message.requestId, processed, alreadyProcessed, inProgress, failed, errors });
});
process.on("disconnect", () => process.exit(0));

const server = createServer(toNodeListener(handler));
server.listen(0, "127.0.0.1", () => send({ type: "ready", port: (server.address() as AddressInfo).port }));
