// `npm run mutation -- <src files> [--tests a.test.ts,b.test.ts] [stryker options]`: mutation testing of just
// those files (stryker.config.mjs), incrementally, running the test files that import them or the ones --tests
// names. The test files reach vitest's `include` through MUTATION_TEST_FILES (vitest.mutation.config.ts), not
// Stryker's --testFiles: with --testFiles, Stryker 10 activates a module's top-level (static) mutants after the
// module has loaded, and reports them as survivors whatever the tests do (stryker-js issue 6144).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const args = process.argv.slice(2);
const testsAt = args.indexOf("--tests");
const named = testsAt === -1 ? undefined : args[testsAt + 1];
const rest = testsAt === -1 ? args : args.filter((_, index) => index !== testsAt && index !== testsAt + 1);
const files = rest.filter((arg) => !arg.startsWith("-") && /\.[cm]?ts$/.test(arg));
const options = rest.filter((arg) => !files.includes(arg));
if (files.length === 0 || (testsAt !== -1 && !named)) {
	console.error("usage: npm run mutation -- <src/file.ts>... [--tests a.test.ts,b.test.ts] [--force]");
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
	const wanted = new Set(targets.map((file) => resolve(file)));
	return testFiles("test").filter((test) => {
		const text = readFileSync(test, "utf8");
		for (const [, specifier] of text.matchAll(/\bfrom\s+["'](\.{1,2}\/[^"']+)["']/g)) {
			if (wanted.has(resolve(dirname(test), specifier.replace(/\.js$/, ".ts")))) return true;
		}
		return false;
	});
}

const tests = named ? named.split(",") : importersOf(files);
if (tests.length === 0) {
	console.error(`No test file imports ${files.join(", ")}: name the tests with --tests a.test.ts,b.test.ts`);
	process.exit(2);
}
console.log(`Mutating ${files.join(", ")}; tests: ${tests.join(", ")}`);
// One incremental file per set of mutated files: a run on other files does not drop these results.
const incrementalFile = `reports/mutation/${files.join("+").replace(/[^\w.+-]+/g, "_")}.incremental.json`;
const strykerArgs = ["stryker", "run", "--mutate", files.join(","), "--incrementalFile", incrementalFile];
const result = spawnSync("npx", [...strykerArgs, ...options], {
	stdio: "inherit",
	env: { ...process.env, MUTATION_TEST_FILES: tests.join(",") },
});
process.exit(result.status ?? 1);
