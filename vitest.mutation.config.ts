// The test run of mutation testing (stryker.config.mjs). scripts/mutation.mjs names the test files to run in
// MUTATION_TEST_FILES (comma-separated); without it, the unit and integration tests, less the ones that build
// the package, start other runtimes or a browser, or fuzz (slow, and they kill no more mutants).
import { defineConfig } from "vitest/config";

const chosen = process.env.MUTATION_TEST_FILES?.split(",").filter((file) => file !== "");

export default defineConfig({
	test: {
		include: chosen ?? ["test/**/*.test.ts", "src/**/*.test.ts"],
		exclude: ["test/package/**", "test/runtimes/**", "test/browser/**", "test/fuzz/**", "**/node_modules/**"],
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: "forks",
	},
});
