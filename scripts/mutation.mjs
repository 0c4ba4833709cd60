// `npm run mutation -- <src files> [--testFiles a.test.ts,b.test.ts] [stryker options]`: mutation testing of just
// those files (stryker.config.mjs), incrementally, running the test files that import them or the ones named.
// The test files reach vitest's `include` through MUTATION_TEST_FILES (vitest.mutation.config.ts), not Stryker's
// --testFiles: with --testFiles, Stryker 10.1 switches a module's top-level (static) mutants on after the module
// has loaded and reports them as survivors whatever the tests do (stryker-js #6144).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const args = process.argv.slice(2);
// Options that take a value: the value (a list of test files ends in .ts too) is not a file to mutate.
const VALUED = new Set([
	"--testFiles",
	"-t",
	"--mutate",
	"-m",
	"--concurrency",
	"-c",
	"--logLevel",
	"--timeoutMS",
	"--incrementalFile",
]);
const files = [];
const options = [];
let named;
for (let i = 0; i < args.length; i++) {
	if ((args[i] === "--testFiles" || args[i] === "-t") && i + 1 < args.length) named = args[++i];
	else if (VALUED.has(args[i]) && i + 1 < args.length) options.push(args[i], args[++i]);
	else if (!args[i].startsWith("-") && /\.[cm]?ts(:\d+(-\d+)?)?$/.test(args[i])) files.push(args[i]);
	else options.push(args[i]);
}
if (files.length === 0) {
	console.error("usage: npm run mutation -- <src/file.ts>... [--testFiles a.test.ts,b.test.ts] [--force]");
	process.exit(2);
}

/** Every test file under `dir`. */
function testFiles(dir) {
	return readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && entry.name.endsWith(".test.ts"))
		.map((entry) => relative(".", join(entry.parentPath, entry.name)));
}

/** The test files that import one of `targets` themselves (an import of `x.js` is the source `x.ts`). */
function importersOf(targets) {
	const wanted = new Set(targets.map((file) => resolve(file.replace(/:[\d-]+$/, ""))));
	return testFiles("test").filter((test) => {
		const text = readFileSync(test, "utf8");
		for (const [, specifier] of text.matchAll(/\bfrom\s+["'](\.{1,2}\/[^"']+)["']/g)) {
			if (wanted.has(resolve(dirname(test), specifier.replace(/\.js$/, ".ts")))) return true;
		}
		return false;
	});
}

const tests = named ? named.split(",").filter((test) => test !== "") : importersOf(files);
if (tests.length === 0) {
	console.error(`No test file imports ${files.join(", ")}: name the tests with --testFiles a.test.ts,b.test.ts`);
	process.exit(2);
}
console.log(`Mutating ${files.join(", ")}; tests: ${tests.join(", ")}`);
const strykerArgs = ["stryker", "run", "--mutate", files.join(",")];
// One incremental file per set of files: a run on other files would otherwise replace the results kept.
if (!options.includes("--incrementalFile")) {
	const name = files.map((file) => file.replace(/^src\//, "").replace(/[^\w.-]+/g, "_")).join("+");
	strykerArgs.push("--incrementalFile", `reports/mutation/incremental/${name}.json`);
}
const result = spawnSync("npx", [...strykerArgs, ...options], {
	stdio: "inherit",
	env: { ...process.env, MUTATION_TEST_FILES: tests.join(",") },
});
process.exit(result.status ?? 1);
