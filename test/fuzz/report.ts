import type { Reporter, TestModule } from "vitest/node";
import type { FuzzResult } from "./support/runner.js";

/** Prints the seed of a long fuzz run first, and a table of cases per second per target at the end. */
export default class FuzzReporter implements Reporter {
	readonly #seed: string;

	constructor(seed: string) {
		this.#seed = seed;
	}

	onInit(): void {
		process.stdout.write(
			`\nfuzz: seed ${this.#seed} (replay with FUZZ_SEED=${this.#seed}), ${process.env.FUZZ_RUNS ?? "100000"} cases per target\n`,
		);
	}

	onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
		const rows: FuzzResult[] = [];
		for (const module of testModules) {
			for (const test of module.children.allTests()) {
				const result = test.meta().fuzz;
				if (result) rows.push(result);
			}
		}
		const width = Math.max(6, ...rows.map((row) => row.target.length));
		const lines = rows.map((row) => {
			const perSecond = Math.round(row.cases / (row.ms / 1000));
			const state = row.failed ? "FAILED" : "ok";
			return `${row.target.padEnd(width)}  ${String(row.cases).padStart(8)}  ${(row.ms / 1000).toFixed(1).padStart(8)}  ${String(perSecond).padStart(8)}  ${state}`;
		});
		const header = `${"target".padEnd(width)}  ${"cases".padStart(8)}  ${"seconds".padStart(8)}  ${"cases/s".padStart(8)}`;
		process.stdout.write(`\nfuzz: seed ${this.#seed}\n${header}\n${lines.join("\n")}\n`);
	}
}
