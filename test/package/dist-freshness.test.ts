import { spawnSync } from "node:child_process";
import {
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { root } from "../support/build.js";

/**
 * `npm run demo` and `npm run example` build dist/ only when it is stale (scripts/build.mjs --if-stale):
 * right after `npm ci`, whose `prepare` built it, they start at once. The decision is tested here on a small
 * project of its own (the script copied next to it, the repository's node_modules linked in), with real
 * builds, and by content, never by clock.
 */

const project = mkdtempSync(join(tmpdir(), "mg-dist-freshness-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));
const at = (path: string) => join(project, path);
const write = (path: string, text: string) => {
	mkdirSync(join(at(path), ".."), { recursive: true });
	writeFileSync(at(path), text);
};

mkdirSync(at("scripts"));
copyFileSync(join(root, "scripts/build.mjs"), at("scripts/build.mjs"));
symlinkSync(join(root, "node_modules"), at("node_modules"), "dir");
write("package.json", '{ "name": "freshness-fixture", "type": "module" }\n');
write("tsconfig.json", '{ "compilerOptions": { "strict": true } }\n');
write("tsup.config.ts", 'export default { entry: ["src/index.ts"], format: ["esm"], outDir: "dist", dts: false };\n');
write("src/index.ts", "export const answer: number = 42;\n");
write("src/util/a.ts", "export const a = 1;\n");
write("src/util/b.ts", "export const b = 2;\n");
write("src/util/c.ts", "export const c = 3;\n");

function script(...args: string[]) {
	const result = spawnSync(process.execPath, [at("scripts/build.mjs"), ...args], { cwd: project, encoding: "utf8" });
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
const check = () => script("--check");

describe("whether dist/ is stale", () => {
	test("never built: stale, and --if-stale says what it does before building", () => {
		expect(check()).toEqual({ status: 1, stdout: "dist/ is stale: dist/ is not built yet\n", stderr: "" });
		const built = script("--if-stale");
		expect(built.status).toBe(0);
		expect(built.stderr.split("\n")[0]).toBe(
			"Building dist/ first: dist/ is not built yet. This happens once after each change to the sources.",
		);
		expect(built.stderr).toMatch(/^Built dist\/ in \d+\.\d s\.$/m);
		expect(readFileSync(at("dist/index.js"), "utf8")).toContain("42");
		expect(check()).toEqual({ status: 0, stdout: "dist/ is up to date\n", stderr: "" });
	});

	test("up to date: --if-stale prints nothing and builds nothing", () => {
		const stamp = readFileSync(at("dist/.build-stamp.json"), "utf8");
		rmSync(at("dist/index.js"));
		expect(script("--if-stale")).toEqual({ status: 0, stdout: "", stderr: "" });
		expect(readFileSync(at("dist/.build-stamp.json"), "utf8")).toBe(stamp);
		expect(() => readFileSync(at("dist/index.js"))).toThrow();
		expect(script().status).toBe(0);
	});

	test("content decides, not time: a touched file is fresh, an edited one stale until its edit is undone", () => {
		const future = new Date(Date.now() + 3_600_000);
		utimesSync(at("src/index.ts"), future, future);
		expect(check().status).toBe(0);
		write("src/index.ts", "export const answer: number = 43;\n");
		expect(check()).toEqual({
			status: 1,
			stdout: "dist/ is stale: src/index.ts changed since the last build\n",
			stderr: "",
		});
		write("src/index.ts", "export const answer: number = 42;\n");
		expect(check().status).toBe(0);
	});

	test("files added, removed, several changed, and the build's configuration", () => {
		write("src/util/d.ts", "export const d = 4;\n");
		expect(check().stdout).toBe("dist/ is stale: src/util/d.ts added since the last build\n");
		rmSync(at("src/util/d.ts"));
		rmSync(at("src/util/c.ts"));
		expect(check().stdout).toBe("dist/ is stale: src/util/c.ts removed since the last build\n");
		write("src/util/c.ts", "export const c = 3;\n");
		for (const name of ["a", "b", "c"]) write(`src/util/${name}.ts`, `export const ${name} = 0;\n`);
		expect(check().stdout).toBe(
			"dist/ is stale: src/util/a.ts, src/util/b.ts and 1 more files changed since the last build\n",
		);
		for (const [name, value] of [
			["a", 1],
			["b", 2],
			["c", 3],
		] as const)
			write(`src/util/${name}.ts`, `export const ${name} = ${value};\n`);
		expect(check().status).toBe(0);
		for (const config of ["tsup.config.ts", "tsconfig.json", "package.json"]) {
			const before = readFileSync(at(config), "utf8");
			write(config, `${before}\n`);
			expect(check().stdout).toBe(`dist/ is stale: ${config} changed since the last build\n`);
			write(config, before);
		}
		expect(check().status).toBe(0);
	});

	test("a build that fails leaves dist/ stale", () => {
		write("src/index.ts", "export const answer: number = ;\n");
		expect(script("--if-stale").status).not.toBe(0);
		expect(check()).toEqual({
			status: 1,
			stdout: "dist/ is stale: dist/ has no record of a complete build\n",
			stderr: "",
		});
		write("src/index.ts", "export const answer: number = 42;\n");
		expect(script("--if-stale").status).toBe(0);
		expect(check().status).toBe(0);
	});
});

test("npm run demo, npm run example and npm pack build only a stale dist/; the build and prepare write the stamp", () => {
	const { scripts, files } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
		scripts: Record<string, string>;
		files: string[];
	};
	expect(scripts.demo).toBe(
		"node scripts/require-node.cjs && node scripts/build.mjs --if-stale && node examples/demo.ts",
	);
	expect(scripts.example).toBe("node scripts/require-node.cjs && node scripts/build.mjs --if-stale && node");
	expect(scripts.build).toBe("node scripts/build.mjs");
	expect(scripts.prepare).toBe("node scripts/build.mjs --silent");
	expect(scripts.prepack).toBe("node scripts/build.mjs --if-stale && node scripts/pack-manifest.mjs write");
	expect(files).toContain("!dist/.build-stamp.json");
});
