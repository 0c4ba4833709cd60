import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

// No module cycles between folders under src/: modules that import one another, directly or through
// others, live in one folder, so a folder can be read, tested and moved with what it uses. Every relative
// import counts, type-only and dynamic ones too (the sources' import specifiers are read as text). And
// notifications/ is layered like sandbox/: its sub-folders import one another without a cycle, and none
// imports the folder's entry above them.

const src = fileURLToPath(new URL("../../src/", import.meta.url));
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith(".ts") ? [path] : [];
	});
}

/** Each module under `root` (its path there) to the modules it imports. */
function moduleGraph(root: string): Map<string, Set<string>> {
	const graph = new Map<string, Set<string>>();
	for (const file of sourceFiles(root)) {
		const imports = new Set<string>();
		for (const [, specifier] of readFileSync(file, "utf8").matchAll(IMPORT)) {
			const target = normalize(join(dirname(file), (specifier as string).replace(/\.js$/, ".ts")));
			imports.add(relative(root, target));
		}
		graph.set(relative(root, file), imports);
	}
	return graph;
}

/** The strongly connected parts of `graph` with more than one node: its cycles (Tarjan's algorithm). */
function cycles(graph: Map<string, Set<string>>): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const found: string[][] = [];
	const visit = (node: string) => {
		index.set(node, index.size);
		low.set(node, index.get(node) as number);
		stack.push(node);
		for (const next of graph.get(node) ?? []) {
			if (!graph.has(next)) continue;
			if (!index.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
			} else if (stack.includes(next)) low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
		}
		if (low.get(node) === index.get(node)) {
			const part: string[] = [];
			for (let item = stack.pop(); item !== undefined; item = item === node ? undefined : stack.pop()) part.push(item);
			if (part.length > 1) found.push(part.sort());
		}
	};
	for (const node of graph.keys()) if (!index.has(node)) visit(node);
	return found;
}

/** The folders a cycle of modules spans. */
const foldersOf = (part: string[]) => [...new Set(part.map((path) => dirname(path)))];

test("the check finds cycles, and tells those within a folder from those between folders", () => {
	const graph = new Map([
		["a/one.ts", new Set(["b/two.ts"])],
		["b/two.ts", new Set(["a/one.ts"])],
		["c/three.ts", new Set(["c/four.ts"])],
		["c/four.ts", new Set(["c/three.ts"])],
		["d/five.ts", new Set(["a/one.ts"])],
	]);
	const found = cycles(graph);
	expect(found).toEqual(
		expect.arrayContaining([
			["a/one.ts", "b/two.ts"],
			["c/four.ts", "c/three.ts"],
		]),
	);
	expect(found.map(foldersOf).filter((folders) => folders.length > 1)).toEqual([["a", "b"]]);
});

test("no module cycle under src/ spans two folders", () => {
	const graph = moduleGraph(src);
	expect(graph.get("notifications/handler/handler.ts")).toContain("notifications/claims/claimed-event.ts");
	expect(cycles(graph).filter((part) => foldersOf(part).length > 1)).toEqual([]);
});

test("notifications/: its sub-folders import one another without a cycle, and never the entry above them", () => {
	const folders = new Map<string, Set<string>>();
	for (const [module, imports] of moduleGraph(src)) {
		const from = dirname(module);
		if (!from.startsWith("notifications/")) continue;
		const edges = folders.get(from) ?? new Set<string>();
		folders.set(from, edges);
		for (const target of imports) {
			expect(target, `${module} imports the folder's entry`).not.toBe("notifications/index.ts");
			const to = dirname(target);
			if (to.startsWith("notifications/") && to !== from) edges.add(to);
		}
	}
	expect([...folders.keys()].sort()).toEqual([
		"notifications/claims",
		"notifications/handler",
		"notifications/http",
		"notifications/message",
		"notifications/reconciler",
	]);
	expect(cycles(folders)).toEqual([]);
});
