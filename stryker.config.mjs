// Mutation testing (StrykerJS): `npm run mutation -- <src files>` (scripts/mutation.mjs) mutates those files and
// runs the tests that import them. See CONTRIBUTING.md, "Mutation testing".
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
	testRunner: "vitest",
	vitest: { configFile: "vitest.mutation.config.ts", related: false },
	// Each mutant runs only the tests that executed its code in the first (dry) run.
	coverageAnalysis: "perTest",
	concurrency: 2,
	// Results are kept and reused while neither the mutant's code nor its tests change, under reports/ (out of git;
	// scripts/mutation.mjs names the file after the mutated files). Mutants of code that runs when a module loads
	// (constants, sets of names, patterns) are measured too: scripts/mutation.mjs hands the test files to vitest
	// rather than to Stryker's --testFiles, with which Stryker 10.1 switched them on too late (stryker-js #6144).
	incremental: true,
	reporters: ["clear-text", "progress", "html", "json"],
	htmlReporter: { fileName: "reports/mutation/mutation.html" },
	jsonReporter: { fileName: "reports/mutation/mutation.json" },
	clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
	tempDirName: ".stryker-tmp",
	ignorePatterns: ["dist", "docs/api", "coverage", "artifacts", "reports", "bench", "examples", "*.tgz"],
	// Machines running this are shared: a slow test is not an endless loop.
	timeoutMS: 15_000,
	dryRunTimeoutMinutes: 20,
};
