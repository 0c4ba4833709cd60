import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import FuzzReporter from "./report.js";

/**
 * `npm run fuzz`: the fuzz targets of test/fuzz, long. FUZZ_RUNS cases per target (default
 * 100,000), from FUZZ_SEED or a random seed printed first; one file at a time, so that the
 * cases per second in the closing table are comparable. `npm run fuzz -- -t keys` runs
 * the targets whose name matches.
 */
const seed = process.env.FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));

export default defineConfig({
	root: fileURLToPath(new URL("../..", import.meta.url)),
	test: {
		include: ["test/fuzz/**/*.test.ts"],
		pool: "forks",
		fileParallelism: false,
		hookTimeout: 120_000,
		env: { FUZZ_MODE: "long", FUZZ_SEED: seed },
		reporters: ["default", new FuzzReporter(seed)],
	},
});
