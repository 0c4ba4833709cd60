// The test run of mutation testing (stryker.config.mjs): the unit and integration tests, without the ones that
// build the package, start other runtimes or a browser, or fuzz (they are slow and kill no more mutants).
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts", "src/**/*.test.ts"],
		exclude: ["test/package/**", "test/runtimes/**", "test/browser/**", "test/fuzz/**", "**/node_modules/**"],
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: "forks",
	},
});
