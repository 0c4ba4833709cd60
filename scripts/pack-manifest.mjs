// The package.json a consumer installs. npm packs package.json as it is on disk, so `npm pack` and
// `npm publish` run this around packing:
//   node scripts/pack-manifest.mjs write     (prepack)  save package.json aside, write the consumer's in its place
//   node scripts/pack-manifest.mjs restore   (postpack) put the saved package.json back
// The consumer's has no scripts (its npm would see `prepare`, an install script whose file is not in the
// tarball), no devDependencies and no overrides: only this repository uses them. Without `prepare`, npm
// does not build again while it packs either: `prepack` built dist/ already, and only when it was stale.
// A pack that stopped between the two steps leaves the saved copy; the next write or restore puts it back first.
// Plain JavaScript, like build.mjs: npm runs it on whatever Node.js runs npm.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const MANIFEST = join(root, "package.json");
/** Where package.json waits while the consumer's is packed (git-ignored, never packed: not under `files`). */
const SAVED = join(root, ".package.json.packing");
/** What only this repository uses. */
const REPOSITORY_ONLY = ["scripts", "devDependencies", "overrides"];

/** The consumer's package.json: the repository's without what only the repository uses. */
function consumerManifest(manifest) {
	const consumer = { ...manifest };
	for (const field of REPOSITORY_ONLY) delete consumer[field];
	return consumer;
}

/** Puts back a package.json that a pack left aside (it stopped before `restore`). */
function restore() {
	if (existsSync(SAVED)) renameSync(SAVED, MANIFEST);
}

function write() {
	restore();
	const text = readFileSync(MANIFEST, "utf8");
	writeFileSync(SAVED, text);
	const staged = `${MANIFEST}.${process.pid}.tmp`;
	writeFileSync(staged, `${JSON.stringify(consumerManifest(JSON.parse(text)), null, 2)}\n`);
	renameSync(staged, MANIFEST);
}

const action = process.argv[2];
if (action === "write") write();
else if (action === "restore") restore();
else {
	console.error("usage: node scripts/pack-manifest.mjs write|restore");
	process.exitCode = 2;
}
