import fc from "fast-check";
import { type TestContext, test } from "vitest";

/**
 * How the fuzz suite runs. Inside `npm test` every target runs a few hundred cases
 * from a fixed seed (reproducible). `npm run fuzz` (test/fuzz/vitest.config.ts) sets
 * FUZZ_MODE=long: 100,000 cases per target (FUZZ_RUNS), from a random seed that it
 * prints (FUZZ_SEED replays one), and a table of cases per second at the end.
 * Every target of a long run shares the seed the config drew (it passes it as FUZZ_SEED).
 * A failure names the seed and the path; FUZZ_SEED + FUZZ_PATH replay that very case.
 */

const long = process.env.FUZZ_MODE === "long";
/** The seed of `npm test`: any fixed number; changing it only changes which cases run. */
const SHORT_SEED = 20_261_121;
const envRuns = process.env.FUZZ_RUNS === undefined ? undefined : Number(process.env.FUZZ_RUNS);
const envSeed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

if (envRuns !== undefined && !(Number.isSafeInteger(envRuns) && envRuns > 0))
	throw new Error("FUZZ_RUNS must be a positive integer");
if (envSeed !== undefined && !Number.isSafeInteger(envSeed)) throw new Error("FUZZ_SEED must be an integer");

/** A bound on one asynchronous case, only to tell a hang from a slow machine: far above any case's real cost. */
export const CASE_TIMEOUT_MS = 10_000;

export interface FuzzResult {
	target: string;
	cases: number;
	ms: number;
	seed: number;
	failed: boolean;
}

declare module "vitest" {
	interface TaskMeta {
		fuzz?: FuzzResult;
	}
}

export interface FuzzOptions {
	/** Cases inside `npm test`. @default 300 */
	shortRuns?: number;
}

const PEM_BLOCK = /-----BEGIN [^-]*-----[\s\S]*?(?:-----END [^-]*-----|$)/g;
const BASE64_RUN = /[A-Za-z0-9+/_-]{48,}={0,2}/g;
const BYTE_LIST = /(?:\d{1,3},){32,}\d{1,3}/g;

/** Long runs of one character (deep nesting, padding) as their count. */
function shortened(text: string): string {
	return text.replace(/(.)\1{39,}/gsu, (run, unit: string) => `〈${JSON.stringify(unit)} × ${[...run].length}〉`);
}

/** A counterexample or error as text, with key material (PEM, long base64, byte lists) replaced by its size. */
export function redactKeyMaterial(text: string): string {
	return shortened(text)
		.replace(PEM_BLOCK, (block) => `[redacted PEM block, ${block.length} chars]`)
		.replace(BASE64_RUN, (run) => `[redacted base64, ${run.length} chars]`)
		.replace(BYTE_LIST, (list) => `[redacted ${list.split(",").length} bytes]`);
}

function describeError(error: unknown): string {
	if (error instanceof Error)
		return `${error.constructor.name}: ${error.message}\n${error.stack?.split("\n").slice(1, 8).join("\n") ?? ""}`;
	return `a non-Error value: ${fc.stringify(error)}`;
}

function failureReport<Ts>(target: string, details: fc.RunDetails<Ts>): string {
	const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ""}`;
	const command = long ? `${replay} npm run fuzz -- -t "${target}"` : `${replay} npx vitest run -t "${target}"`;
	if (details.interrupted || details.counterexample === null)
		return `fuzz ${target}: run interrupted after ${details.numRuns} cases (seed ${details.seed}).`;
	const example = redactKeyMaterial(fc.stringify(details.counterexample));
	return [
		`fuzz ${target}: failed after ${details.numRuns} cases and ${details.numShrinks} shrinks (seed ${details.seed}).`,
		`Counterexample (key material redacted): ${example.length > 3000 ? `${example.slice(0, 3000)}…` : example}`,
		`Failure: ${redactKeyMaterial(describeError(details.errorInstance))}`,
		`Replay: ${command}`,
	].join("\n");
}

/**
 * Declares one fuzz target as a vitest test: runs the property for the mode's number of
 * cases, records cases and time for the long run's report, and fails with a redacted,
 * replayable counterexample.
 */
export function fuzzTarget<Ts>(target: string, property: () => fc.IRawProperty<Ts>, options: FuzzOptions = {}): void {
	const numRuns = envRuns ?? (long ? 100_000 : (options.shortRuns ?? 300));
	const timeout = long ? 24 * 60 * 60 * 1000 : undefined;
	test(
		target,
		async (context: TestContext) => {
			const seed = envSeed ?? (long ? Math.floor(Math.random() * 2 ** 31) : SHORT_SEED);
			const parameters: fc.Parameters<Ts> = { numRuns, seed, plugins: [fc.timeout(CASE_TIMEOUT_MS) as fc.Plugin<Ts>] };
			if (process.env.FUZZ_PATH) parameters.path = process.env.FUZZ_PATH;
			const started = performance.now();
			const details = await fc.check(property(), parameters);
			const ms = performance.now() - started;
			const result: FuzzResult = { target, cases: details.numRuns, ms, seed: details.seed, failed: details.failed };
			context.task.meta.fuzz = result;
			if (long)
				console.log(
					`fuzz ${target}: ${result.cases} cases in ${(ms / 1000).toFixed(1)} s, ${Math.round(result.cases / (ms / 1000))} cases/s`,
				);
			if (details.failed) throw new Error(failureReport(target, details));
		},
		timeout,
	);
}
