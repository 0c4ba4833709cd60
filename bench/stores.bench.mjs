// Shared stores: the IPN handler's throughput on loopback with the Redis and the
// PostgreSQL store against the same handler with the in-memory store, in one run,
// and each store's claim and claim-to-confirm latency (median, p99).
//
// A real redis-server and a real PostgreSQL (Debian packages redis-server and
// postgresql) are started on loopback with temporary data, as in the tests
// (test/support/real-servers.ts, imported as TypeScript: Node 22.18+ strips types),
// with their usual durability: PostgreSQL fsyncs every commit, Redis keeps no AOF.
// PostgreSQL is measured twice: as is (every commit waits for an fsync, so its figure
// is printed next to this machine's fsync time, measured in the same temporary
// directory), and with the store's `synchronousCommit: false` (its commits no longer
// wait for the disk; a database crash may lose the last fraction of a second of
// claims and confirms, which Redis without AOF loses too).
// The three handler servers run in child processes pinned to one CPU; the load
// generator and the database servers share the other (see pinLoadAndServers).
// Every delivery is a new event, as most real deliveries are: the stores forget each
// event 1 ms after its confirm, and each round sends distinct IPNs (8000 are signed
// up front), so each request claims, runs the callback and confirms (the server checks
// that it did). Before each PostgreSQL round, store.cleanup() deletes the rows of the
// rounds before (all past their 1 ms retention), so its claims are inserts of new
// rows, as for new events, not updates of old ones.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createMemoryStore, createNotificationHandler, toNodeListener } from "../dist/index.js";
import { sealMessage } from "../dist/signing/index.js";
import { createPostgresStore } from "../dist/stores/postgres.js";
import { createRedisStore } from "../dist/stores/redis.js";
import { median, pinLoadAndServers, report, startChildServer } from "./lib.mjs";
import { vector } from "./vectors.mjs";

const keysDir = new URL("../test/vectors/keys/", import.meta.url);
const gatewayPrivatePem = readFileSync(new URL("gateway-private.pem", keysDir), "utf8");
const gatewayPublicPem = readFileSync(new URL("gateway-public.pem", keysDir), "utf8");
const typicalTransaction = vector("transaction-ipn-2.0").input;
const ROLE = process.env.STORES_BENCH_SERVER;
const ROUNDS = Number(process.env.STORES_BENCH_ROUNDS ?? 8);

/** A store of each kind on its own client: `ttlMs: 1`, so a confirmed event is new again a millisecond later. */
async function openStore(kind, urls, ttlMs = 1) {
	if (kind === "memory") return { store: createMemoryStore({ ttlMs }), close: async () => {} };
	if (kind === "redis") {
		const { createClient } = await import("redis");
		const client = await createClient({ url: urls.redis }).connect();
		return { store: createRedisStore({ client, ttlMs }), close: () => client.close() };
	}
	const { default: pg } = await import("pg");
	const pool = new pg.Pool({ connectionString: urls.postgres, max: 10 });
	pool.on("error", () => {});
	// "postgres-async": the same store with its option synchronousCommit: false (a merchant's choice, see the guide).
	const synchronousCommit = kind !== "postgres-async";
	return { store: createPostgresStore({ pool, ttlMs, synchronousCommit }), close: () => pool.end() };
}

async function serve(kind) {
	const urls = JSON.parse(process.env.STORES_BENCH_URLS);
	const { store } = await openStore(kind, urls);
	let processed = 0;
	const handler = toNodeListener(
		createNotificationHandler({
			gatewayPublicKey: gatewayPublicPem,
			store,
			onTransaction: async () => {
				processed++;
			},
			onRefund: async () => {},
		}),
	);
	let served = 0;
	let duplicates = 0;
	const server = createServer((req, res) => {
		served++;
		// A delivery acknowledged as a duplicate skipped the claim, the callback and the confirm: it must not happen here.
		const end = res.end;
		res.end = function (chunk, ...rest) {
			if (chunk && String(chunk).includes("Already processed")) duplicates++;
			return end.call(this, chunk, ...rest);
		};
		handler(req, res);
	});
	server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
	process.on("message", () => process.send({ served, processed, duplicates }));
	process.on("disconnect", () => process.exit(0));
}

async function startServer(kind, serverPrefix, urls) {
	const env = { STORES_BENCH_SERVER: kind, STORES_BENCH_URLS: JSON.stringify(urls) };
	const { hello, ask, stop } = await startChildServer(import.meta.url, env, serverPrefix);
	return { kind, port: hello.port, counts: ask, stop };
}

function ipnBodies(count) {
	return Array.from({ length: count }, (_, i) =>
		JSON.stringify(
			sealMessage(
				{ ...typicalTransaction, transactionId: `01JD5Z8Q4V7M1X2C3B4N${String(i).padStart(6, "0")}` },
				{ privateKey: gatewayPrivatePem, signVersion: "2.1" },
			),
		),
	);
}

/** Requests per second over `seconds`; every request must have got 200 after running the callback. */
async function load(server, bodies, seconds) {
	const { default: autocannon } = await import("autocannon");
	let next = 0;
	const setupRequest = (request) => ({ ...request, body: bodies[next++ % bodies.length] });
	const result = await autocannon({
		url: `http://127.0.0.1:${server.port}/ipn`,
		connections: 10,
		duration: seconds,
		requests: [{ method: "POST", headers: { "content-type": "application/json" }, setupRequest }],
	});
	const after = await server.counts();
	const { kind } = server;
	const failures = result.non2xx + result.errors;
	if (failures > 0) throw new Error(`${kind}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
	if (after.duplicates > 0) throw new Error(`bench setup: ${kind} acknowledged ${after.duplicates} duplicates`);
	// Requests cut off when the load generator stopped were received but never responded to: the rate counts responses.
	return (result.requests.total - result.non2xx) / seconds;
}

/** Claim alone and claim + confirm, one event after another (no other load), in milliseconds. */
async function latencies(kind, urls, count) {
	const { store, close } = await openStore(kind, urls, 60_000);
	const claims = [];
	const cycles = [];
	const prefix = `latency-${Date.now()}-`;
	for (let i = 0; i < count + 100; i++) {
		const eventId = `${prefix}${i}`;
		const start = performance.now();
		const claim = await store.claim(eventId, 60_000, `t${i}`);
		if (claim !== "claimed") throw new Error(`bench setup: ${kind} did not grant a new claim`);
		const claimed = performance.now();
		if ((await store.confirm(eventId, `t${i}`)) === "lease_lost") throw new Error(`bench setup: ${kind} lost a claim`);
		const end = performance.now();
		// The first 100 warm up connections, prepared statements and scripts.
		if (i >= 100) {
			claims.push(claimed - start);
			cycles.push(end - start);
		}
	}
	await close();
	const quantile = (values, q) => {
		const sorted = [...values].sort((a, b) => a - b);
		return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
	};
	const [claimMedian, claimP99] = [quantile(claims, 0.5), quantile(claims, 0.99)];
	return { claimMedian, claimP99, cycleMedian: quantile(cycles, 0.5), cycleP99: quantile(cycles, 0.99) };
}

/**
 * What one durable commit waits for on this machine: an 8 KiB write and an fdatasync (PostgreSQL's
 * default wal_sync_method on Linux), in a file of the temporary directory the database's data is in.
 * Median and p99 over `count` rounds, in milliseconds.
 */
async function fsyncTime(count = 300) {
	const { mkdtempSync, openSync, writeSync, fdatasyncSync, closeSync, rmSync } = await import("node:fs");
	const { tmpdir } = await import("node:os");
	const { join } = await import("node:path");
	const dir = mkdtempSync(join(tmpdir(), "mg-fsync-"));
	const fd = openSync(join(dir, "wal"), "w");
	const page = Buffer.alloc(8192, 1);
	const times = [];
	try {
		for (let i = 0; i < count + 20; i++) {
			const start = performance.now();
			writeSync(fd, page, 0, page.length, (i % 16) * page.length);
			fdatasyncSync(fd);
			if (i >= 20) times.push(performance.now() - start);
		}
	} finally {
		closeSync(fd);
		rmSync(dir, { recursive: true, force: true });
	}
	times.sort((a, b) => a - b);
	return { median: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
}

async function main() {
	let servers;
	try {
		servers = await import("../test/support/real-servers.ts");
		servers.redisAvailability();
		if (!servers.postgresAvailability().ok || !servers.redisAvailability().ok)
			throw new Error("missing server binaries");
	} catch (error) {
		const needs = "install the Debian packages redis-server and postgresql; Node 22.18+ for the TypeScript helper";
		console.log(`  skipped: ${error.message} (${needs})`);
		return;
	}
	// The database servers start after the pin: they share the load generator's CPU, the handlers get the other.
	const pin = await pinLoadAndServers();
	const redis = await servers.startRedis({ appendOnly: false });
	const postgres = await servers.startPostgres({ durable: true });
	const urls = { redis: redis.url, postgres: postgres.connectionString };
	try {
		// Creates the table, and between rounds deletes the rows the rounds before left.
		const upkeep = await openStore("postgres", urls);
		await upkeep.store.migrate();
		const bodies = ipnBodies(8000);
		const handlers = [];
		for (const kind of ["memory", "redis", "postgres", "postgres-async"]) {
			handlers.push(await startServer(kind, pin.serverPrefix, urls));
		}
		for (const server of handlers) await load(server, bodies, 1);
		// Rounds in rotating order (memory, redis, postgres; redis, postgres, memory; ...): each store's
		// rate is compared with the memory store's in the same round, and the figure is the median ratio.
		const rounds = [];
		for (let round = 0; round < ROUNDS; round++) {
			const rps = {};
			for (let i = 0; i < handlers.length; i++) {
				const server = handlers[(round + i) % handlers.length];
				if (server.kind.startsWith("postgres")) await upkeep.store.cleanup();
				rps[server.kind] = await load(server, bodies, 1.5);
			}
			rounds.push(rps);
		}
		await Promise.all(handlers.map((server) => server.stop()));
		await upkeep.close();
		pin.release();
		const memoryRps = median(rounds.map((r) => r.memory));
		const fsync = await fsyncTime();
		const fsyncLine = `fsync here: 8 KiB write + fdatasync median ${fsync.median.toFixed(3)} ms, p99 ${fsync.p99.toFixed(3)} ms`;
		// The durable store has no goal: each event is two commits, each waiting for one such fsync.
		for (const [kind, name, goalShare] of [
			["redis", "Redis store", 0.6],
			["postgres", "PostgreSQL store", undefined],
			["postgres-async", "PostgreSQL store (synchronousCommit: false)", 0.4],
		]) {
			const shares = rounds.map((r) => r[kind] / r.memory);
			const share = median(shares);
			const storeRps = median(rounds.map((r) => r[kind]));
			const rates = `${storeRps.toFixed(0)} req/s vs memory store ${memoryRps.toFixed(0)} req/s`;
			const perRound = shares.map((s) => s.toFixed(2)).join(" ");
			const goal = goalShare === undefined ? `next to the ${fsyncLine}` : `goal >= ${goalShare}x`;
			const verdict = `median ${share.toFixed(2)}x the memory store's rate (${goal})`;
			console.log(`  ${name}: ${rates}; per round ${perRound}; ${verdict}`);
			// As a time ratio, like every other figure: per-request time with this store over the memory store's.
			const memoryNs = 1e9 / memoryRps;
			const timeGoal = goalShare === undefined ? undefined : 1 / goalShare;
			const figure = { baselineNs: memoryNs, candidateNs: memoryNs / share, ratio: 1 / share, goal: timeGoal };
			report(`IPN handler, ${name} vs memory store (req/s)`, figure);
		}
		for (const [kind, name] of [
			["memory", "memory store"],
			["redis", "Redis store"],
			["postgres", "PostgreSQL store"],
			["postgres-async", "PostgreSQL store (synchronousCommit: false)"],
		]) {
			const l = await latencies(kind, urls, 2000);
			const ms = (value) => `${value.toFixed(3)} ms`;
			const claim = `claim median ${ms(l.claimMedian)}, p99 ${ms(l.claimP99)}`;
			const cycle = `claim+confirm median ${ms(l.cycleMedian)}, p99 ${ms(l.cycleP99)}`;
			console.log(`  ${name} latency (sequential, loopback): ${claim}; ${cycle}`);
			if (kind !== "memory") {
				// Against the 5 ms budget: the ratio is p99 / 5 ms.
				const figure = { baselineNs: 5e6, candidateNs: l.claimP99 * 1e6, ratio: l.claimP99 / 5, goal: 1 };
				report(`${name} claim p99 vs 5 ms budget`, figure);
			}
		}
	} finally {
		pin.release();
		await redis.close();
		await postgres.close();
	}
}

if (ROLE) await serve(ROLE);
else await main();
