import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Importing the package must stay cheap (IPN handlers run in cold-started functions):
// node-forge and ky are reached only through dynamic import(), never a static one.
// This follows the static import graph of the sources, so it needs no build.
// `npm run bench` (bench/import.bench.mjs) checks the same on the built package.

const root = fileURLToPath(new URL("../../", import.meta.url));
const LAZY_ONLY = ["node-forge", "ky"];

/** Import/export statements that load a module at import time: not `import type`, not `export type`, not `import()`. */
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[^;'"]*?\sfrom\s+)?["']([^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

function specifiers(pattern: RegExp, source: string): string[] {
	return [...source.matchAll(pattern)].map((match) => match[1] ?? "");
}

function resolveRelative(from: string, specifier: string): string {
	const path = join(dirname(from), specifier).replace(/\.js$/, ".ts");
	if (!existsSync(path)) throw new Error(`${relative(root, from)} imports ${specifier}, which does not exist`);
	return path;
}

/** Every source file and bare package reachable from `entry` through static imports. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string>; dynamic: Map<string, string[]> } {
	const files = new Set<string>();
	const packages = new Set<string>();
	const dynamic = new Map<string, string[]>();
	const pending = [entry];
	for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
		if (files.has(file)) continue;
		files.add(file);
		const source = readFileSync(file, "utf8");
		for (const specifier of specifiers(STATIC_IMPORT, source)) {
			if (specifier.startsWith(".")) pending.push(resolveRelative(file, specifier));
			else
				packages.add(
					specifier.startsWith("node:")
						? specifier
						: specifier
								.split("/")
								.slice(0, specifier.startsWith("@") ? 2 : 1)
								.join("/"),
				);
		}
		const lazy = specifiers(DYNAMIC_IMPORT, source);
		if (lazy.length > 0) dynamic.set(relative(root, file), lazy);
	}
	return { files, packages, dynamic };
}

describe("import cost: what `import 'merchant-gateway'` loads", () => {
	const graph = staticGraph(join(root, "src/index.ts"));

	it("finds the signing core in the static graph (the walk works)", () => {
		expect([...graph.files].map((file) => relative(root, file))).toEqual(
			expect.arrayContaining(["src/signing/keys.ts", "src/signing/canonical.ts"]),
		);
	});

	it.each(LAZY_ONLY)("never loads %s statically", (name) => {
		expect([...graph.packages]).not.toContain(name);
	});

	it("reaches node-forge only through the forge backend's dynamic import", () => {
		expect([...graph.files].map((file) => relative(root, file))).not.toContain("src/signing/forge-backend.ts");
		expect(graph.dynamic.get("src/signing/backend.ts")).toEqual(["./forge-backend.js"]);
		expect(readFileSync(join(root, "src/signing/forge-backend.ts"), "utf8")).toMatch(
			/^import forge from "node-forge";$/m,
		);
	});

	it("does not import node:crypto statically (edge bundles must not break on it)", () => {
		expect([...graph.packages].filter((name) => name === "node:crypto" || name === "crypto")).toEqual([]);
	});

	it("loads neither store nor any database driver (merchants who use neither never install or load them)", () => {
		const files = [...graph.files].map((file) => relative(root, file));
		expect(files.filter((file) => file.startsWith("src/stores/"))).toEqual([]);
		expect([...graph.packages].filter((name) => ["redis", "ioredis", "pg", "@redis/client"].includes(name))).toEqual(
			[],
		);
		expect([...graph.dynamic.values()].flat().filter((specifier) => /stores|redis|^pg$/.test(specifier))).toEqual([]);
	});

	it.each(["redis", "postgres"])("the %s store entry imports no driver: the merchant passes the client in", (name) => {
		const store = staticGraph(join(root, `src/stores/${name}.ts`));
		expect([...store.packages].sort()).toEqual(["node:crypto"]);
		expect(store.dynamic.size).toBe(0);
	});

	it("the pattern sees through multi-line imports and skips type-only ones", () => {
		const sample =
			'import type { A } from "ky";\nimport {\n\ta,\n\tb,\n} from "node-forge";\nexport { c } from "./c.js";\nconst m = await import("zod");\n';
		expect(specifiers(STATIC_IMPORT, sample)).toEqual(["node-forge", "./c.js"]);
		expect(specifiers(DYNAMIC_IMPORT, sample)).toEqual(["zod"]);
	});
});
