// Builds dist/ and records what it was built from, so that `npm run demo`, `npm run example` and `npm pack`
// build only when dist/ is stale (right after `npm ci`, which builds through `prepare`, they start at once).
//   node scripts/build.mjs [--silent]   build (npm run build, prepare), then write the stamp
//   node scripts/build.mjs --if-stale   build only when the sources changed since the stamp, saying so (demo,
//                                       example, prepack)
//   node scripts/build.mjs --check      say whether dist/ is up to date (exit 0) or stale (exit 1); never builds
// Plain JavaScript, like require-node.cjs: `prepare` runs it on whatever Node.js `npm ci` runs on.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
/** What the build reads: a change to any file here makes dist/ stale. */
const INPUTS = ["src", "tsup.config.ts", "tsconfig.json", "package.json"];
/** Removed before a build and written after it succeeded: a failed build leaves none. */
const STAMP = join("dist", ".build-stamp.json");

/** Each input file's path (with "/") and a digest of its content. */
function inputDigests() {
	const digests = {};
	const visit = (path) => {
		if (!existsSync(path)) return;
		if (statSync(path).isDirectory()) {
			for (const name of readdirSync(path).sort()) visit(join(path, name));
			return;
		}
		const name = relative(root, path).split(sep).join("/");
		digests[name] = createHash("sha256").update(readFileSync(path)).digest("hex").slice(0, 32);
	};
	for (const input of INPUTS) visit(join(root, input));
	return digests;
}

/** "a", "a and b", "a, b and 3 more files". */
function listed(names) {
	if (names.length <= 2) return names.join(" and ");
	return `${names.slice(0, 2).join(", ")} and ${names.length - 2} more files`;
}

/** Why dist/ is stale, or undefined when the stamp records exactly the current inputs. */
function staleReason(digests) {
	let stamped;
	try {
		stamped = JSON.parse(readFileSync(join(root, STAMP), "utf8")).inputs;
	} catch {
		return existsSync(join(root, "dist")) ? "dist/ has no record of a complete build" : "dist/ is not built yet";
	}
	if (typeof stamped !== "object" || stamped === null) return "dist/ has no record of a complete build";
	const changed = Object.keys(digests).filter((name) => name in stamped && stamped[name] !== digests[name]);
	const added = Object.keys(digests).filter((name) => !(name in stamped));
	const removed = Object.keys(stamped).filter((name) => !(name in digests));
	const reasons = [];
	if (changed.length > 0) reasons.push(`${listed(changed)} changed`);
	if (added.length > 0) reasons.push(`${listed(added)} added`);
	if (removed.length > 0) reasons.push(`${listed(removed)} removed`);
	return reasons.length === 0 ? undefined : `${reasons.join("; ")} since the last build`;
}

async function build(digests, { silent }) {
	process.chdir(root);
	rmSync(join(root, STAMP), { force: true });
	const { build: tsup } = await import("tsup");
	await tsup({ silent });
	writeFileSync(join(root, STAMP), `${JSON.stringify({ inputs: digests }, null, 1)}\n`);
}

const flags = new Set(process.argv.slice(2));
const digests = inputDigests();
if (flags.has("--check")) {
	const reason = staleReason(digests);
	console.log(reason === undefined ? "dist/ is up to date" : `dist/ is stale: ${reason}`);
	process.exitCode = reason === undefined ? 0 : 1;
} else if (flags.has("--if-stale")) {
	const reason = staleReason(digests);
	if (reason !== undefined) {
		console.error(`Building dist/ first: ${reason}. This happens once after each change to the sources.`);
		const started = performance.now();
		await build(digests, { silent: true });
		console.error(`Built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
	}
} else {
	await build(digests, { silent: flags.has("--silent") });
}
