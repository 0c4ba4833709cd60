// Exactly once across a fleet: four merchant processes, each with its own IPN
// handler on its own port and its own reconciler, share one store (a real Redis or
// PostgreSQL). The sandbox delivers IPNs through a load balancer that sends forced
// duplicates to several instances at once; one instance is killed in the middle of
// a callback. Side effects are counted in the store's own database.
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../src/index.js";
import { createPostgresStore } from "../../src/stores/postgres.js";
import { transactionIpn } from "../notifications/fixtures.js";
import { cardFields, MERCHANT_ID, type SandboxServer, startSandbox } from "../sandbox/helpers.js";
import { seededRandom } from "../support/random.js";
import type { PostgresServer, RedisServer } from "../support/real-servers.js";
import { postgresAvailability, redisAvailability, startPostgres, startRedis } from "../support/real-servers.js";
import { keys } from "../support/vectors.js";
import { type Fleet, loadBalancer, startFleet, type Worker, workerBundle } from "./fleet.js";

type CardParams = Parameters<GatewayClient["card"]["charge"]>[0];

interface Effect {
	eventId: string;
	pid: number;
	source: "ipn" | "reconciliation";
	/** Database time when the callback started, in microseconds. */
	startedAt: number;
}

/** Reading the store's database: the effects the callbacks left, and a claim's lease end. */
interface Database {
	url: string;
	kind: "redis" | "postgres";
	prepare(namespace: string): Promise<void>;
	effects(namespace: string): Promise<Effect[]>;
	started(namespace: string): Promise<{ eventId: string; pid: number }[]>;
	/** When the claim on `eventId` ends, in the database's microseconds. */
	leaseEnd(namespace: string, eventId: string): Promise<number>;
	close(): Promise<void>;
}

async function redisDatabase(server: RedisServer): Promise<Database> {
	const redis = await createClient({ url: server.url }).connect();
	const list = async (key: string) => (await redis.lRange(key, 0, -1)).map((item) => JSON.parse(item));
	return {
		url: server.url,
		kind: "redis",
		prepare: async () => {},
		effects: (ns) => list(`${ns}:effects`),
		started: (ns) => list(`${ns}:started`),
		leaseEnd: async (ns, eventId) => {
			// TIME and PTTL in one script: the same instant.
			const script = "local t = redis.call('TIME') return {t[1], t[2], redis.call('PTTL', KEYS[1])}";
			const answer = await redis.eval(script, { keys: [`${ns}:event:${eventId}`] });
			const [seconds, micros, pttl] = answer as [string, string, number];
			expect(pttl).toBeGreaterThan(0);
			return Number(seconds) * 1e6 + Number(micros) + pttl * 1000;
		},
		close: async () => void (await redis.close()),
	};
}

async function postgresDatabase(server: PostgresServer): Promise<Database> {
	const pool = new pg.Pool({ connectionString: server.connectionString, max: 4 });
	return {
		url: server.connectionString,
		kind: "postgres",
		prepare: async (ns) => {
			await createPostgresStore({ pool, table: ns }).migrate();
			const columns = "event_id text NOT NULL, pid int NOT NULL, source text NOT NULL, started_at bigint NOT NULL";
			await pool.query(`CREATE TABLE ${ns}_effects (${columns})`);
			await pool.query(`CREATE TABLE ${ns}_started (event_id text NOT NULL, pid int NOT NULL)`);
		},
		effects: async (ns) =>
			(await pool.query(`SELECT event_id, pid, source, started_at FROM ${ns}_effects`)).rows.map((row) => ({
				eventId: row.event_id,
				pid: row.pid,
				source: row.source,
				startedAt: Number(row.started_at),
			})),
		started: async (ns) => (await pool.query(`SELECT event_id AS "eventId", pid FROM ${ns}_started`)).rows,
		leaseEnd: async (ns, eventId) => {
			const micros = "(extract(epoch FROM expires_at) * 1000000)::bigint";
			const { rows } = await pool.query(`SELECT ${micros} AS t FROM ${ns} WHERE event_id = $1`, [eventId]);
			return Number(rows[0]?.t);
		},
		close: () => pool.end(),
	};
}

/** Events per transaction id: each test transaction is approved, so its one event is `...:successful`. */
const eventOf = (transactionId: string) => `transaction:${transactionId}:successful`;

/** Runs `task` `count` times, `limit` at a time. */
async function inParallel(count: number, limit: number, task: () => Promise<void>): Promise<void> {
	let started = 0;
	await Promise.all(
		Array.from({ length: limit }, async () => {
			while (started++ < count) await task();
		}),
	);
}

function deferred() {
	let resolve: () => void = () => {};
	const promise = new Promise<void>((res) => {
		resolve = res;
	});
	return { promise, resolve };
}

type Open = () => Promise<{ database: Database; close: () => Promise<void> }>;

function fleetSuite(kind: "redis" | "postgres", open: Open) {
	let database: Database;
	let closeServer: () => Promise<void>;
	let namespaceCount = 0;
	const running: { fleet?: Fleet; sandbox?: SandboxServer }[] = [];

	beforeAll(async () => {
		await workerBundle();
		({ database, close: closeServer } = await open());
	});
	afterAll(async () => {
		for (const { fleet, sandbox } of running) {
			await fleet?.close();
			await sandbox?.close();
		}
		await database?.close();
		await closeServer?.();
	});

	/** A sandbox whose IPNs go through a load balancer over a new fleet of four, on a fresh store namespace. */
	async function setUp(options: {
		leaseMs: number;
		blockIn?: number;
		balancer?: Partial<Parameters<typeof loadBalancer>[1]>;
	}) {
		const { seed, random } = seededRandom();
		const namespace = `fleet_${kind}_${++namespaceCount}`;
		await database.prepare(namespace);
		let balancer: ReturnType<typeof loadBalancer> | undefined;
		const sandbox = await startSandbox({
			// Retries every 250 ms for 15 s: enough for a killed instance's lease to run out.
			ipn: {
				timeScale: 1,
				retryDelaysMs: Array(60).fill(250),
				ackTimeoutMs: 20_000,
				duplicates: 1,
				fetch: (url, init) => (balancer as NonNullable<typeof balancer>).fetch(url, init),
			},
		});
		const entry: { fleet?: Fleet; sandbox?: SandboxServer } = { sandbox };
		running.push(entry);
		const fleet = await startFleet(
			4,
			{
				store: kind,
				url: database.url,
				namespace,
				leaseMs: options.leaseMs,
				gatewayUrl: sandbox.url,
				gatewayPublicKey: keys.gatewayPublic,
				merchantId: MERCHANT_ID,
				merchantPrivateKey: keys.merchantPrivate,
				maxCallbackMs: 10,
				seed,
			},
			options.blockIn,
		);
		entry.fleet = fleet;
		const doomed = options.blockIn === undefined ? undefined : fleet.workers[options.blockIn];
		balancer = loadBalancer(fleet, { random, ...options.balancer, ...(doomed ? { firstTo: doomed } : {}) });
		const gateway = new GatewayClient({
			baseUrl: sandbox.url,
			merchantId: MERCHANT_ID,
			privateKey: keys.merchantPrivate,
			gatewayPublicKey: keys.gatewayPublic,
			allowLoopbackHttp: true,
		});
		let order = 0;
		// The notification URL is the load balancer's; the sandbox's ipn.fetch is the balancer itself.
		const charge = async () => {
			const {
				merchantId: _m,
				paymentMethod: _p,
				...params
			} = cardFields("http://127.0.0.1:9", "4000000000000010", {
				orderRef: `${namespace}-${++order}`,
			});
			return (await gateway.card.charge(params as unknown as CardParams)).transactionId;
		};
		return { namespace, sandbox, fleet, balancer, charge, random };
	}

	/** Every notification's last regular attempt was acknowledged. */
	function expectAllAcknowledged(sandbox: SandboxServer, transactionIds: string[]) {
		const attempts = sandbox.sandbox.deliveries().filter((d) => !d.duplicate);
		const last = new Map(attempts.map((d) => [d.eventId, d]));
		expect([...last.keys()].sort()).toEqual(transactionIds.map(eventOf).sort());
		expect([...last.values()].filter((d) => d.outcome !== "acknowledged")).toEqual([]);
	}

	it("duplicates to several instances, one instance killed mid-callback: each callback completes once", async () => {
		const leaseMs = 2000;
		const { namespace, sandbox, fleet, balancer, charge } = await setUp({ leaseMs, blockIn: 1 });
		const killed = fleet.blocked.then(async ({ worker, eventId }) => {
			const leaseEnd = await database.leaseEnd(namespace, eventId);
			await fleet.kill(worker);
			return { pid: worker.child.pid as number, eventId, leaseEnd };
		});
		const ids: string[] = [];
		await inParallel(30, 4, async () => void ids.push(await charge()));
		expect(ids).toHaveLength(30);
		const victim = await killed;
		await sandbox.sandbox.whenIdle();
		await balancer.settled();

		expectAllAcknowledged(sandbox, ids);
		const effects = await database.effects(namespace);
		const perEvent = new Map<string, Effect[]>();
		for (const effect of effects) perEvent.set(effect.eventId, [...(perEvent.get(effect.eventId) ?? []), effect]);
		expect([...perEvent.keys()].sort()).toEqual(ids.map(eventOf).sort());
		expect([...perEvent.entries()].filter(([, list]) => list.length !== 1)).toEqual([]);
		// The killed instance entered that callback and never finished it; another instance completed it,
		// and only once the killed one's lease had ended (both times from the database's clock).
		const started = await database.started(namespace);
		expect(started).toContainEqual({ eventId: victim.eventId, pid: victim.pid });
		const completed = perEvent.get(victim.eventId)?.[0] as Effect;
		expect(completed.pid).not.toBe(victim.pid);
		expect(completed.startedAt).toBeGreaterThanOrEqual(victim.leaseEnd);
		expect(effects.filter((effect) => effect.pid === victim.pid)).toEqual([]);
		// Duplicates did reach several instances: more responses than events, from more than one instance per event.
		expect(balancer.responses.filter((a) => a.copy).length).toBeGreaterThanOrEqual(ids.length);
	});

	it("200 events delivered and reconciled, interleaved across processes: one callback run per event", async () => {
		// A quarter of the deliveries wait until their transaction was reconciled (reconciliation first),
		// a quarter are reconciled only after their IPN was acknowledged (IPN first), the rest race at random.
		const reconciledFirst = new Map<string, ReturnType<typeof deferred>>();
		const gate = (id: string) => reconciledFirst.get(id) ?? reconciledFirst.set(id, deferred()).get(id);
		const group = (id: string) => id.charCodeAt(id.length - 1) % 4;
		const { namespace, sandbox, fleet, balancer, charge, random } = await setUp({
			leaseMs: 10_000,
			balancer: {
				copies: 1,
				hold: async (id) => {
					if (group(id) === 0) await gate(id)?.promise;
					else if (group(id) >= 2) await new Promise((resolve) => setTimeout(resolve, random() * 30));
				},
			},
		});
		const pick = () => fleet.workers[Math.floor(random() * fleet.workers.length)] as (typeof fleet.workers)[number];
		const reconciliations: Promise<{ errors: string[] }>[] = [];
		const ids: string[] = [];
		await inParallel(200, 4, async () => {
			const id = await charge();
			ids.push(id);
			if (group(id) === 0) {
				const both = Promise.all([fleet.reconcile(pick(), [id]), fleet.reconcile(pick(), [id])]);
				reconciliations.push(both.then(([a, b]) => ({ errors: [...a.errors, ...b.errors] })));
				await both;
				gate(id)?.resolve();
			} else if (group(id) === 1) {
				reconciliations.push(balancer.acknowledged(id).then(() => fleet.reconcile(pick(), [id])));
			} else {
				await new Promise((resolve) => setTimeout(resolve, random() * 30));
				reconciliations.push(fleet.reconcile(pick(), [id]), fleet.reconcile(pick(), [id]));
			}
		});
		expect(ids).toHaveLength(200);
		const reports = await Promise.all(reconciliations);
		await sandbox.sandbox.whenIdle();
		await balancer.settled();

		expect(reports.flatMap((report) => report.errors)).toEqual([]);
		expectAllAcknowledged(sandbox, ids);
		const effects = await database.effects(namespace);
		const runs = new Map<string, number>();
		for (const effect of effects) runs.set(effect.eventId, (runs.get(effect.eventId) ?? 0) + 1);
		expect(runs.size).toBe(200);
		expect([...runs.keys()].sort()).toEqual(ids.map(eventOf).sort());
		expect([...runs.entries()].filter(([, n]) => n !== 1)).toEqual([]);
		// Both ways in did win some events, in more than one process.
		expect(new Set(effects.map((effect) => effect.source))).toEqual(new Set(["ipn", "reconciliation"]));
		expect(new Set(effects.map((effect) => effect.pid)).size).toBeGreaterThan(1);
	}, 120_000); // 200 events through several worker processes

	it("failed on instance A, replayed from instance B while the gateway retries: kept, then run once", async () => {
		const namespace = `fleet_${kind}_${++namespaceCount}`;
		await database.prepare(namespace);
		const fleet = await startFleet(2, {
			store: kind,
			url: database.url,
			namespace,
			leaseMs: 30_000,
			gatewayUrl: "http://127.0.0.1:9",
			gatewayPublicKey: keys.gatewayPublic,
			merchantId: MERCHANT_ID,
			merchantPrivateKey: keys.merchantPrivate,
			maxCallbackMs: 20,
			seed: seededRandom().seed,
			failing: true,
		});
		running.push({ fleet });
		const [a, b] = fleet.workers as [Worker, Worker];
		const deliver = async (worker: Worker, body: string) => {
			const response = await fetch(`http://127.0.0.1:${worker.port}/ipn`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body,
			});
			return { status: response.status, body: (await response.json()) as { returnCode: string } };
		};
		const ids = Array.from({ length: 12 }, (_, i) => `t-${namespace.replaceAll("_", "-")}-${i}`);
		const bodies = new Map(ids.map((id) => [id, transactionIpn(id)]));
		// Every event fails on A, twice (a gateway retry), and is kept with both attempts.
		for (const id of ids) {
			for (let attempt = 0; attempt < 2; attempt++) {
				const response = await deliver(a, bodies.get(id) as string);
				expect(response.status).toBe(500);
				expect(response.body.returnCode).not.toBe("100");
			}
		}
		const kept = (await fleet.ask(b, { type: "failed" })) as { eventId: string; attempts: number; lastError: string }[];
		expect(kept.map((record) => record.eventId)).toEqual(ids.map(eventOf));
		expect(new Set(kept.map((record) => record.attempts))).toEqual(new Set([2]));
		expect(kept[0]?.lastError).toMatch(/^Error: the order database is down \(card 411111\*{6}1111, in \d+\)$/);
		await Promise.all(fleet.workers.map((worker) => fleet.ask(worker, { type: "fix" })));

		// The first three are replayed from B alone: each runs there, once.
		const alone = ids.slice(0, 3);
		for (const id of alone) {
			expect(await fleet.ask(b, { type: "retry", eventId: eventOf(id) })).toEqual({
				eventId: eventOf(id),
				result: "processed",
			});
		}
		// Each other replay from B races a gateway retry to A and one to B, and a second replay from A.
		const results = await Promise.all(
			ids.slice(3).map(async (id) => {
				const body = bodies.get(id) as string;
				const [replayB, toA, toB, replayA] = await Promise.all([
					fleet.ask(b, { type: "retry", eventId: eventOf(id) }),
					deliver(a, body),
					deliver(b, body),
					fleet.ask(a, { type: "retry", eventId: eventOf(id) }),
				]);
				return { id, replays: [replayB, replayA] as { result: string }[], deliveries: [toA, toB] };
			}),
		);
		const effects = await database.effects(namespace);
		const runs = new Map<string, number>();
		for (const effect of effects) runs.set(effect.eventId, (runs.get(effect.eventId) ?? 0) + 1);
		expect([...runs.keys()].sort()).toEqual(ids.map(eventOf).sort());
		expect([...runs.entries()].filter(([, n]) => n !== 1)).toEqual([]);
		for (const { replays, deliveries } of results) {
			// Exactly one of the four ran the callback; a replay that did not run says why.
			const ranByReplay = replays.filter((replay) => replay.result === "processed").length;
			const ranByDelivery = deliveries.filter((d) => d.status === 200 && d.body.returnCode === "100").length;
			expect(ranByReplay).toBeLessThanOrEqual(1);
			expect(ranByReplay + ranByDelivery).toBeGreaterThanOrEqual(1);
			for (const replay of replays) {
				expect(["processed", "in_progress", "already_processed", "not_found"]).toContain(replay.result);
			}
		}
		// Every callback entry, failed ones included: two failed runs on A and one run that succeeded.
		const started = await database.started(namespace);
		for (const id of ids) {
			const entries = started.filter((entry) => entry.eventId === eventOf(id));
			expect(entries).toHaveLength(3);
			expect(entries.filter((entry) => entry.pid === a.child.pid).length).toBeGreaterThanOrEqual(2);
		}
		for (const id of alone) {
			expect(effects.find((effect) => effect.eventId === eventOf(id))?.pid).toBe(b.child.pid);
		}
		expect((await fleet.ask(a, { type: "failed" })) as unknown[]).toEqual([]);
		expect((await fleet.ask(b, { type: "failed" })) as unknown[]).toEqual([]);
		// Later deliveries and replays find the event done.
		expect((await deliver(b, bodies.get(ids[0] as string) as string)).body.returnCode).toBe("100");
		expect(await fleet.ask(a, { type: "retry", eventId: eventOf(ids[0] as string) })).toMatchObject({
			result: "not_found",
		});
	});
}

const redisOk = redisAvailability();
describe.skipIf(!redisOk.ok)(`fleet on Redis${redisOk.reason ? ` (${redisOk.reason})` : ""}`, () => {
	fleetSuite("redis", async () => {
		const server = await startRedis({ appendOnly: false });
		return { database: await redisDatabase(server), close: () => server.close() };
	});
});

const postgresOk = postgresAvailability();
describe.skipIf(!postgresOk.ok)(`fleet on PostgreSQL${postgresOk.reason ? ` (${postgresOk.reason})` : ""}`, () => {
	fleetSuite("postgres", async () => {
		const server = await startPostgres();
		return { database: await postgresDatabase(server), close: () => server.close() };
	});
});
