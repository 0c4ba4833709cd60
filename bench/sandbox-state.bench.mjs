// Sandbox persistence: checkout creation throughput over loopback HTTP with a state directory
// (every answer waits until its change is fdatasync'd to the journal) against the same sandbox
// in memory. Goal: at least 0.8x the in-memory throughput, that is at most 1.25x the wall time
// per checkout. Then, to explain the journal: what one save costs as an appended line, and as a
// rewritten snapshot (temporary file, fsync, rename) of a ledger of growing size.
// Servers run in child processes (this file, forked), as in sandbox.bench.mjs.
import { closeSync, fsyncSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkoutBodies, fireCheckouts, MERCHANT_ID, pem } from "./checkout-bodies.mjs";
import { median, pinLoadAndServers, report, startChildServer } from "./lib.mjs";

const ROLE = process.env.SANDBOX_STATE_BENCH_SERVER;
const REQUESTS = 600;
const ROUNDS = 7;
const CONNECTIONS = 8;

async function serve(role) {
	const { startSandboxServer } = await import("../dist/testing.js");
	const stateDir = role === "state" ? mkdtempSync(join(tmpdir(), "sandbox-state-bench-")) : undefined;
	const server = await startSandboxServer({
		stateDir,
		gatewayKeys: { privateKey: pem("gateway-private"), publicKey: pem("gateway-public") },
		merchants: [{ merchantId: MERCHANT_ID, publicKey: pem("merchant-public"), signVersion: "2.1" }],
	});
	process.send({ port: server.port, stateDir });
	process.on("message", () => process.send({ cpu: process.cpuUsage() }));
	process.on("disconnect", async () => {
		await server.close();
		if (stateDir) rmSync(stateDir, { recursive: true, force: true });
		process.exit(0);
	});
}

/** A server in a child process, through `serverPrefix` (taskset) when given; it reports its CPU time. */
async function startServer(role, serverPrefix) {
	const { hello, ask, stop } = await startChildServer(
		import.meta.url,
		{ SANDBOX_STATE_BENCH_SERVER: role },
		serverPrefix,
	);
	const cpuUs = async () => {
		const { cpu } = await ask();
		return cpu.user + cpu.system;
	};
	return { ...hello, cpuUs, stop };
}

/** Checkouts per second and server CPU microseconds per checkout, for one set of bodies. */
async function load(server, bodies) {
	const before = await server.cpuUs();
	const { seconds } = await fireCheckouts(server.port, bodies, CONNECTIONS);
	const after = await server.cpuUs();
	return { rps: bodies.length / seconds, cpuUs: (after - before) / bodies.length };
}

/** Milliseconds per save: one journal line appended and fdatasync'd, or the whole ledger rewritten. */
function saveCosts(line, ledgerSizes) {
	const dir = mkdtempSync(join(tmpdir(), "sandbox-save-bench-"));
	try {
		const journal = openSync(join(dir, "journal.ndjson"), "a");
		const appends = 100;
		let start = performance.now();
		for (let i = 0; i < appends; i++) {
			writeSync(journal, line);
			fsyncSync(journal);
		}
		const appendMs = (performance.now() - start) / appends;
		closeSync(journal);
		const snapshots = ledgerSizes.map((size) => {
			const text = line.repeat(size);
			const rounds = 10;
			start = performance.now();
			for (let i = 0; i < rounds; i++) {
				const temp = openSync(join(dir, "snapshot.tmp"), "w");
				writeSync(temp, text);
				fsyncSync(temp);
				closeSync(temp);
				renameSync(join(dir, "snapshot.tmp"), join(dir, "snapshot.ndjson"));
				const folder = openSync(dir, "r");
				fsyncSync(folder);
				closeSync(folder);
			}
			return { size, ms: (performance.now() - start) / rounds };
		});
		return { appendMs, snapshots };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

async function main() {
	// The load generator on one CPU, the two servers on the other (see pinLoadAndServers).
	const pin = await pinLoadAndServers();
	const memory = await startServer("memory", pin.serverPrefix);
	const state = await startServer("state", pin.serverPrefix);
	try {
		const warm = checkoutBodies(300, "warm");
		await fireCheckouts(memory.port, warm, CONNECTIONS);
		await fireCheckouts(state.port, warm, CONNECTIONS);
		// Each round sends the same new bodies to both servers, in alternating order; the ratio is taken within a round.
		const rounds = [];
		for (let round = 0; round < ROUNDS; round++) {
			const bodies = checkoutBodies(REQUESTS, `round-${round}`);
			const first = round % 2 === 0 ? memory : state;
			const firstLoad = await load(first, bodies);
			const secondLoad = await load(first === memory ? state : memory, bodies);
			const [inMemory, onDisk] = first === memory ? [firstLoad, secondLoad] : [secondLoad, firstLoad];
			rounds.push({ inMemory, onDisk, ratio: onDisk.rps / inMemory.rps });
		}
		const ratio = median(rounds.map((r) => r.ratio));
		const memoryRps = median(rounds.map((r) => r.inMemory.rps));
		const stateRps = median(rounds.map((r) => r.onDisk.rps));
		const memoryCpu = median(rounds.map((r) => r.inMemory.cpuUs));
		const stateCpu = median(rounds.map((r) => r.onDisk.cpuUs));
		console.log(
			`  checkouts/s over HTTP (${CONNECTIONS} connections): in memory ${memoryRps.toFixed(0)}, with a state ` +
				`directory ${stateRps.toFixed(0)}; median ratio within a round ${ratio.toFixed(3)}x (goal >= 0.8x); ` +
				`server CPU per checkout ${stateCpu.toFixed(0)} us vs ${memoryCpu.toFixed(0)} us`,
		);
		report("sandbox checkout wall time per request, state dir vs in memory", {
			baselineNs: 1e9 / memoryRps,
			candidateNs: 1e9 / stateRps,
			ratio: 1 / ratio,
			goal: 1.25,
		});
		const line = `${readFileSync(join(state.stateDir, "journal.ndjson"), "utf8")
			.split("\n")
			.find((l) => l.startsWith('{"transaction"'))}\n`;
		const { appendMs, snapshots } = saveCosts(line, [100, 1000, 10_000]);
		const rewritten = snapshots.map(({ size, ms }) => `${size} transactions ${ms.toFixed(1)} ms`).join(", ");
		console.log(
			`  one save of a ${line.length}-byte transaction: journal append + fdatasync ${appendMs.toFixed(2)} ms; ` +
				`snapshot rewrite (temporary file, fsync, rename, folder fsync) of ${rewritten}`,
		);
	} finally {
		await memory.stop();
		await state.stop();
		pin.release();
	}
}

if (ROLE) await serve(ROLE);
else await main();
