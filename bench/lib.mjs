// Tiny benchmark harness: runs a baseline and a candidate in the same process,
// interleaved in rounds so drift affects both, and reports the median ratio.
import { fork, spawn } from "node:child_process";
import crypto from "node:crypto";
import { fileURLToPath } from "node:url";

/**
 * The 2.1 protocol floor, hand-written: parse the envelope, base64-decode, verify the payload with
 * `publicKeyObject`, parse the payload. The least any 2.1 verifier must do with the bytes.
 */
export function handWritten21(body, publicKeyObject) {
	const envelope = JSON.parse(body);
	const payload = Buffer.from(envelope.payload, "utf8");
	if (!crypto.verify("md5", payload, publicKeyObject, Buffer.from(envelope.signature, "base64")))
		throw new Error("bad");
	return JSON.parse(envelope.payload);
}

/** Times `fn` over `iterations` calls; returns nanoseconds per call. */
export async function timePerCall(fn, iterations) {
	const start = process.hrtime.bigint();
	for (let i = 0; i < iterations; i++) await fn();
	return Number(process.hrtime.bigint() - start) / iterations;
}

/** Synchronous variant: no await overhead for sync work. */
export function timePerCallSync(fn, iterations) {
	const start = process.hrtime.bigint();
	for (let i = 0; i < iterations; i++) fn();
	return Number(process.hrtime.bigint() - start) / iterations;
}

/** The middle value (upper middle for an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The median of each round's candidate/baseline ratio, the two sides of a round having run back to back:
 * what a slow stretch of the machine does to both sides cancels out, GC included.
 */
export const pairedRatio = (base, cand) => median(cand.map((ns, round) => ns / base[round]));

/**
 * Compares candidate to baseline. Returns { baselineNs, candidateNs, ratio }.
 * Options: iterations per round, rounds, warmup calls, sync (both functions synchronous).
 */
export async function compare(
	name,
	baseline,
	candidate,
	{ iterations = 200, rounds = 7, warmup = 50, sync = false, goal } = {},
) {
	const time = sync ? (fn, n) => timePerCallSync(fn, n) : (fn, n) => timePerCall(fn, n);
	await time(baseline, warmup);
	await time(candidate, warmup);
	const base = [];
	const cand = [];
	for (let r = 0; r < rounds; r++) {
		base.push(await time(baseline, iterations));
		cand.push(await time(candidate, iterations));
	}
	const baselineNs = median(base);
	const candidateNs = median(cand);
	const ratio = candidateNs / baselineNs;
	report(name, { baselineNs, candidateNs, ratio, goal });
	return { baselineNs, candidateNs, ratio };
}

/**
 * Calls are timed one by one, alternating baseline and candidate (ABBA order) so that
 * load from other processes on a shared machine hits both alike, and each side
 * is summarized by its median call: a burst of noise moves a few samples, not
 * the median.
 */
export async function pairedCompare(name, baselineFn, candidateFn, { pairs = 1500, warmup = 200, goal } = {}) {
	for (let i = 0; i < warmup; i++) {
		await baselineFn();
		await candidateFn();
	}
	const base = [];
	const cand = [];
	const timeOne = async (fn, into) => {
		const start = process.hrtime.bigint();
		await fn();
		into.push(Number(process.hrtime.bigint() - start));
	};
	for (let i = 0; i < pairs; i++) {
		if (i % 2 === 0) {
			await timeOne(baselineFn, base);
			await timeOne(candidateFn, cand);
		} else {
			await timeOne(candidateFn, cand);
			await timeOne(baselineFn, base);
		}
	}
	const baselineNs = median(base);
	const candidateNs = median(cand);
	report(name, { baselineNs, candidateNs, ratio: candidateNs / baselineNs, goal });
}

export const results = [];

/** Prints one line and keeps it for the summary. */
export function report(name, { baselineNs, candidateNs, ratio, goal, unit = "us" }) {
	const scale = unit === "us" ? 1000 : 1;
	const verdict = goal === undefined ? "" : `  (goal <= ${+goal.toFixed(3)}x: ${ratio <= goal ? "met" : "NOT met"})`;
	const figure = (ns) => `${(ns / scale).toFixed(1).padStart(9)} ${unit}`;
	const line = `${name.padEnd(58)} ${figure(candidateNs)} vs ${figure(baselineNs)}  ratio ${ratio.toFixed(3)}x`;
	results.push({ name, baselineNs, candidateNs, ratio, goal });
	console.log(line + verdict);
}

/**
 * Synchronous baseline vs candidate, for work of a few microseconds: warm-up,
 * many short rounds (shorter than a scheduler time slice) in alternating order,
 * and the ratio of each side's fastest round (on a shared machine, slower rounds
 * mostly measure who else is running). The median ratio is printed below it.
 */
export function compareFastest(name, baseline, candidate, { iterations = 40, rounds = 301, warmup = 3000, goal } = {}) {
	timePerCallSync(baseline, warmup);
	timePerCallSync(candidate, warmup);
	const base = [];
	const cand = [];
	for (let round = 0; round < rounds; round++) {
		if (round % 2 === 0) {
			base.push(timePerCallSync(baseline, iterations));
			cand.push(timePerCallSync(candidate, iterations));
		} else {
			cand.push(timePerCallSync(candidate, iterations));
			base.push(timePerCallSync(baseline, iterations));
		}
	}
	const baselineNs = Math.min(...base);
	const candidateNs = Math.min(...cand);
	const ratio = candidateNs / baselineNs;
	report(name, { baselineNs, candidateNs, ratio, goal });
	const medianCandidateNs = median(cand);
	const medianBaselineNs = median(base);
	console.log(
		`    (median rounds: ${(medianCandidateNs / 1000).toFixed(1)} us vs ${(medianBaselineNs / 1000).toFixed(1)} us, ` +
			`ratio ${(medianCandidateNs / medianBaselineNs).toFixed(3)}x; median of paired rounds ` +
			`${pairedRatio(base, cand).toFixed(3)}x)`,
	);
	return { baselineNs, candidateNs, ratio };
}

/**
 * CPU pinning for loopback throughput benches (Linux `taskset`; a no-op
 * elsewhere or on one CPU). On a 2-core machine the load generator and the
 * server under test otherwise migrate between cores and take turns on one,
 * which moves req/s by tens of percent between identical runs.
 * Pins this process (the load generator) to CPU 0. Returns the command prefix
 * that starts a server child on CPU 1, and `release()`, which gives this process
 * its CPUs back: `npm run bench` runs every bench in this one process, and a
 * later bench (and every child it forks) would otherwise inherit the pin.
 */
export async function pinLoadAndServers() {
	const unpinned = { serverPrefix: [], release: () => {} };
	const { availableParallelism } = await import("node:os");
	const { execFileSync } = await import("node:child_process");
	if (process.platform !== "linux" || availableParallelism() < 2) return unpinned;
	const pid = String(process.pid);
	try {
		// "pid 123's current affinity list: 0,1"
		const original = execFileSync("taskset", ["-cp", pid], { encoding: "utf8" }).split(":").pop().trim();
		execFileSync("taskset", ["-cp", "0", pid], { stdio: "ignore" });
		return {
			serverPrefix: ["taskset", "-c", "1"],
			release: () => execFileSync("taskset", ["-cp", original, pid], { stdio: "ignore" }),
		};
	} catch {
		return unpinned;
	}
}

/**
 * POSTs the IPN bodies in turn to a server's /ipn for `seconds` (autocannon, 10 connections); throws when any
 * response is not 2xx, so a figure never counts refusals as throughput.
 */
export async function loadIpnRoute(port, bodies, seconds) {
	const { default: autocannon } = await import("autocannon");
	let next = 0;
	const result = await autocannon({
		url: `http://127.0.0.1:${port}/ipn`,
		connections: 10,
		duration: seconds,
		requests: [
			{
				method: "POST",
				headers: { "content-type": "application/json" },
				setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }),
			},
		],
	});
	if (result.non2xx > 0 || result.errors > 0)
		throw new Error(`${result.non2xx} non-2xx responses, ${result.errors} errors`);
}

/**
 * Runs the bench file at `url` again in a child process, as the server `env` names, through `serverPrefix`
 * (taskset) when given. The child sends one message once it listens (its port, ...) and answers every message
 * of the parent: `ask()` sends one and resolves with the answer (its CPU time, its counts).
 */
export async function startChildServer(url, env, serverPrefix = []) {
	const options = { env: { ...process.env, ...env }, stdio: ["ignore", "inherit", "inherit", "ipc"] };
	const [command, ...prefixArgs] = serverPrefix;
	const file = fileURLToPath(url);
	const child = command ? spawn(command, [...prefixArgs, process.execPath, file], options) : fork(file, options);
	const exited = new Promise((resolve) => child.once("exit", resolve));
	const hello = await Promise.race([
		new Promise((resolve) => child.once("message", resolve)),
		exited.then((code) => {
			throw new Error(`bench setup: the ${JSON.stringify(env)} server exited (${code}) before it listened`);
		}),
	]);
	const ask = () =>
		new Promise((resolve) => {
			child.once("message", resolve);
			child.send("ask");
		});
	return {
		hello,
		ask,
		stop: async () => {
			child.disconnect();
			await exited;
		},
	};
}
