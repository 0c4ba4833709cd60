import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { root } from "./build.js";

/** What goes into the package: a change to any of these makes a new tarball. */
const INPUTS = [
	"src",
	"scripts",
	"package.json",
	"tsup.config.ts",
	"tsconfig.json",
	"README.md",
	"CHANGELOG.md",
	"LICENSE",
];
const CACHE = join(root, "node_modules", ".cache", "merchant-gateway-packed");
/** Waiting for another test file that is building the same tarball. */
const WAIT_MS = 240_000;

export interface PackedPackage {
	/** The `npm pack` tarball of a full build (declarations and source maps included, as published). */
	tarball: string;
	/** The paths inside it, as `npm pack --json` lists them. */
	files: string[];
	/** The clone's package.json, as it was before `npm pack` and as the pack left it. */
	manifest: { before: string; after: string };
	/** Whether `npm pack` built dist/ again, though the clone's build was up to date. */
	rebuiltByPack: boolean;
}

function inputsHash(): string {
	const hash = createHash("sha256");
	const visit = (path: string) => {
		if (statSync(path).isDirectory()) for (const name of readdirSync(path).sort()) visit(join(path, name));
		else hash.update(`${path.slice(root.length)}\0`).update(readFileSync(path));
	};
	// This file too: how it packs is part of what it packs.
	for (const input of [...INPUTS, "test/support/packed.ts"]) visit(join(root, input));
	return hash.digest("hex").slice(0, 16);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The package as `npm pack` makes it from a full build of the current sources. Built once per
 * state of the sources and shared by every test file (and by the next run): the first caller
 * builds under a lock folder, the others wait for its `done` mark.
 */
export async function packedPackage(): Promise<PackedPackage> {
	const dir = join(CACHE, inputsHash());
	const done = join(dir, "done.json");
	const lock = `${dir}.lock`;
	const deadline = Date.now() + WAIT_MS;
	while (!existsSync(done)) {
		mkdirSync(CACHE, { recursive: true });
		try {
			mkdirSync(lock);
		} catch {
			if (Date.now() > deadline) throw new Error(`Gave up waiting for ${lock}: remove it if no test is building.`);
			await sleep(250);
			continue;
		}
		try {
			if (!existsSync(done)) writeFileSync(done, JSON.stringify(await packInto(dir)));
		} finally {
			rmSync(lock, { recursive: true, force: true });
		}
	}
	return JSON.parse(readFileSync(done, "utf8")) as PackedPackage;
}

/**
 * What `npm ci && npm pack` makes in a clone: the clone staged from the repository's files (its node_modules
 * linked), built as `npm ci` builds it (`prepare`), then packed by npm with its lifecycle scripts, which
 * write the consumer's package.json and put the clone's back.
 */
async function packInto(dir: string): Promise<PackedPackage> {
	for (const name of readdirSync(CACHE)) if (!name.endsWith(".lock")) rmSync(join(CACHE, name), { recursive: true });
	mkdirSync(dir, { recursive: true });
	// Outside node_modules: the declaration bundler leaves out of its bundles whatever lies under one.
	const clone = mkdtempSync(join(tmpdir(), "merchant-gateway-clone-"));
	try {
		for (const input of INPUTS) cpSync(join(root, input), join(clone, input), { recursive: true });
		symlinkSync(join(root, "node_modules"), join(clone, "node_modules"), "dir");
		const run = (command: string, args: string[]) => execFileSync(command, args, { cwd: clone, encoding: "utf8" });
		run(process.execPath, ["scripts/build.mjs", "--silent"]);
		const before = readFileSync(join(clone, "package.json"), "utf8");
		// A build removes the stamp and writes a new one: a new inode says dist/ was built again.
		const stamp = () => statSync(join(clone, "dist", ".build-stamp.json")).ino;
		const built = stamp();
		const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir])) as [
			{ filename: string; files: { path: string }[] },
		];
		return {
			tarball: join(dir, packed.filename),
			files: packed.files.map((file) => file.path).sort(),
			manifest: { before, after: readFileSync(join(clone, "package.json"), "utf8") },
			rebuiltByPack: stamp() !== built,
		};
	} finally {
		rmSync(clone, { recursive: true, force: true });
	}
}

/**
 * A fresh folder (under the system's temp folder) whose node_modules holds the tarball unpacked as
 * `merchant-gateway` with its bin linked, as `npm install <tarball>` would, and the named packages linked from this
 * repository's node_modules (no network: the machine reaches only the registry, and tests do not).
 */
export function consumerProject(
	tarball: string,
	options: { packages: readonly string[]; packageJson?: Record<string, unknown> },
): { dir: string; cleanup(): void } {
	const dir = mkdtempSync(join(tmpdir(), "merchant-gateway-consumer-"));
	const modules = join(dir, "node_modules");
	mkdirSync(join(modules, "merchant-gateway"), { recursive: true });
	execFileSync("tar", ["-xzf", tarball, "-C", join(modules, "merchant-gateway"), "--strip-components=1"]);
	for (const name of options.packages) {
		mkdirSync(dirname(join(modules, name)), { recursive: true });
		symlinkSync(join(root, "node_modules", name), join(modules, name), "dir");
	}
	// Its bins in node_modules/.bin, as npm install links them: what `npx merchant-gateway` runs.
	const installed = JSON.parse(readFileSync(join(modules, "merchant-gateway", "package.json"), "utf8")) as {
		bin: Record<string, string>;
	};
	mkdirSync(join(modules, ".bin"));
	for (const [name, path] of Object.entries(installed.bin))
		symlinkSync(join("..", "merchant-gateway", path), join(modules, ".bin", name));
	const packageJson = { name: "consumer", private: true, ...options.packageJson };
	writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson, null, 2));
	return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The runtime dependencies an installed copy needs. */
export const DEPENDENCIES = Object.keys(
	(JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> })
		.dependencies,
);
