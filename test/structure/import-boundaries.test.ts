import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/build.js";

// Where src's modules may import from, as CONTRIBUTING's layout says: a move inside the sandbox breaks no
// CLI command, and no sandbox folder reaches up into one above it.

const SRC = join(root, "src");
const SANDBOX = join(SRC, "sandbox");
/** The CLI's one door into the sandbox. */
const CLI_DOOR = join(SANDBOX, "cli-entry.ts");
/** The sandbox's folders, top first: each imports only the ones after it. */
const SANDBOX_LAYERS = ["router", "api pages", "control", "core", "persistence", "wire", "books"];

interface Import {
	from: string;
	/** The source file it resolves to. */
	to: string;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".ts"))
		.map((name) => join(dir, name));
}

/** Every relative import of a file (static, re-export or dynamic), resolved to its .ts source. */
function importsOf(file: string): Import[] {
	const text = readFileSync(file, "utf8");
	const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)"(\.{1,2}\/[^"]+)"/gm)];
	return specifiers.map(([, specifier = ""]) => ({
		from: file,
		to: resolve(dirname(file), specifier).replace(/\.js$/, ".ts"),
	}));
}

const folderOf = (file: string) => relative(SANDBOX, file).split("/")[0] ?? "";

function layerOf(file: string): number | undefined {
	const folder = folderOf(file);
	const rank = SANDBOX_LAYERS.findIndex((layer) => layer.split(" ").includes(folder));
	return rank === -1 ? undefined : rank;
}

const show = ({ from, to }: Import) => `${relative(root, from)} -> ${relative(root, to)}`;

describe("import boundaries", () => {
	it("finds the imports it checks", () => {
		const door = importsOf(join(SRC, "cli", "commands", "sandbox", "start.ts")).map((each) => each.to);
		expect(door).toContain(CLI_DOOR);
		expect(importsOf(join(SANDBOX, "cli-entry.ts")).map((each) => relative(SANDBOX, each.to))).toContain("index.ts");
	});

	it("the CLI reaches the sandbox only through src/sandbox/cli-entry.ts", () => {
		const imports = sourceFiles(join(SRC, "cli")).flatMap(importsOf);
		const intoSandbox = imports.filter((each) => each.to.startsWith(`${SANDBOX}/`));
		expect(intoSandbox.length).toBeGreaterThan(0);
		expect(intoSandbox.filter((each) => each.to !== CLI_DOOR).map(show)).toEqual([]);
	});

	it("each sandbox folder imports only the folders under it", () => {
		const files = sourceFiles(SANDBOX).filter((file) => layerOf(file) !== undefined);
		expect(new Set(files.map(folderOf)).size).toBe(8);
		const upward = files.flatMap(importsOf).filter(({ from, to }) => {
			if (!to.startsWith(`${SANDBOX}/`)) return false;
			const target = layerOf(to);
			const source = layerOf(from) ?? 0;
			// A folder's own files, and any folder below it; never an entry (src/sandbox/*.ts) nor a folder above.
			return target === undefined || target < source || (target === source && folderOf(from) !== folderOf(to));
		});
		expect(upward.map(show)).toEqual([]);
	});
});
