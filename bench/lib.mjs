// Tiny benchmark harness: runs a baseline and a candidate in the same process,
// interleaved in rounds so drift affects both, and reports the median ratio.

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

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Compares candidate to baseline. Returns { baselineNs, candidateNs, ratio }.
 * Options: iterations per round, rounds, warmup calls, sync (both functions synchronous).
 */
export async function compare(name, baseline, candidate, { iterations = 200, rounds = 7, warmup = 50, sync = false, goal } = {}) {
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

export const results = [];

/** Prints one line and keeps it for the summary. */
export function report(name, { baselineNs, candidateNs, ratio, goal, unit = "us" }) {
	const scale = unit === "us" ? 1000 : 1;
	const verdict = goal === undefined ? "" : ratio <= goal ? `  (goal <= ${goal}x: met)` : `  (goal <= ${goal}x: NOT met)`;
	const line = `${name.padEnd(58)} ${(candidateNs / scale).toFixed(1).padStart(9)} ${unit} vs ${(baselineNs / scale).toFixed(1).padStart(9)} ${unit}  ratio ${ratio.toFixed(3)}x${verdict}`;
	results.push({ name, baselineNs, candidateNs, ratio, goal });
	console.log(line);
}
