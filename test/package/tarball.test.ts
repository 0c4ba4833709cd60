import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/build.js";
import { consumerProject, DEPENDENCIES, type PackedPackage, packedPackage } from "../support/packed.js";
import { keys, vector } from "../support/vectors.js";

// The tarball `npm pack` makes, as merchants install it: what it holds, and projects that use it
// from ESM, CommonJS and TypeScript (nodenext, bundler, and an edge project without Node's types),
// all with skipLibCheck off so the published declarations are checked too.

const fixtures = fileURLToPath(new URL("fixtures/", import.meta.url));
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
let packed: PackedPackage;
const projects: Array<{ cleanup(): void }> = [];

beforeAll(async () => {
	packed = await packedPackage();
}, 300_000);
afterAll(() => {
	for (const project of projects) project.cleanup();
});

function project(packages: readonly string[], packageJson: Record<string, unknown> = {}) {
	const made = consumerProject(packed.tarball, { packages, packageJson });
	projects.push(made);
	return made.dir;
}

function exec(command: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
	return new Promise((resolve) => {
		execFile(command, args, { cwd, encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) => {
			resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
		});
	});
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
	return readdirSync(dir, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe("what npm pack puts in the tarball", () => {
	it("dist, README, CHANGELOG, LICENSE and package.json; no tests, keys or sources outside dist", () => {
		const outsideDist = packed.files.filter((path) => !path.startsWith("dist/"));
		expect(outsideDist.sort()).toEqual(["CHANGELOG.md", "LICENSE", "README.md", "package.json"]);
		expect(packed.files).toEqual(expect.arrayContaining(["dist/index.js", "dist/index.cjs", "dist/index.d.ts"]));
		expect(packed.files.filter((path) => /(^|\/)(test|tests|__tests__|fixtures)\//.test(path))).toEqual([]);
		expect(packed.files.filter((path) => /\.(test|spec)\.|\.pem$|\.key$|\.env/.test(path))).toEqual([]);
	});

	it("no key material in any file, and source maps only of the package's own sources", () => {
		const dir = project([]);
		const installed = join(dir, "node_modules", "merchant-gateway");
		const files = filesUnder(installed);
		expect(files.length).toBe(packed.files.length);
		const privateKey = /-----BEGIN [A-Z ]*PRIVATE KEY-----\s*[A-Za-z0-9+/=]{40}/;
		const vectorKeys = [keys.merchantPrivate, keys.gatewayPrivate].map((pem) => pem.split("\n")[1] ?? "");
		const maps = files.filter((path) => path.endsWith(".map"));
		expect(maps.length).toBeGreaterThan(0);
		for (const path of files) {
			const text = readFileSync(join(installed, path), "utf8");
			expect(privateKey.test(text), path).toBe(false);
			for (const line of vectorKeys) expect(text.includes(line), path).toBe(false);
		}
		for (const path of maps) {
			const { sources } = JSON.parse(readFileSync(join(installed, path), "utf8")) as { sources: string[] };
			for (const source of sources) expect(source, path).toMatch(/^(\.\.\/)+src\/[\w/.-]+\.ts$/);
		}
	});
});

describe("the package.json in the tarball", () => {
	it("is what a consumer needs: no scripts (no prepare), devDependencies or overrides; the rest as in the clone", () => {
		const text = execFileSync("tar", ["-xzOf", packed.tarball, "package/package.json"], { encoding: "utf8" });
		const clone = JSON.parse(packed.manifest.before) as Record<string, unknown> & { scripts: Record<string, string> };
		expect(clone.scripts.prepare).toBeDefined();
		const { scripts: _scripts, devDependencies: _dev, overrides: _overrides, ...consumer } = clone;
		expect(JSON.parse(text)).toEqual(consumer);
	});

	it("npm pack right after the clone's build builds nothing again, and leaves the clone's package.json as it was", () => {
		expect(packed.rebuiltByPack).toBe(false);
		expect(packed.manifest.after).toBe(packed.manifest.before);
	});

	it("a pack stopped between its two steps: the next one packs the consumer's of the clone's, then puts it back", () => {
		const clone = mkdtempSync(join(tmpdir(), "mg-pack-manifest-"));
		try {
			mkdirSync(join(clone, "scripts"));
			copyFileSync(join(root, "scripts", "pack-manifest.mjs"), join(clone, "scripts", "pack-manifest.mjs"));
			const original =
				'{\n  "name": "x",\n  "version": "1.0.0",\n  "scripts": { "prepare": "node build.mjs" },\n  "devDependencies": { "y": "1" }\n}\n';
			writeFileSync(join(clone, "package.json"), original);
			const step = (action: string) =>
				execFileSync(process.execPath, ["scripts/pack-manifest.mjs", action], { cwd: clone });
			const manifest = () => JSON.parse(readFileSync(join(clone, "package.json"), "utf8")) as unknown;
			step("write");
			expect(manifest()).toEqual({ name: "x", version: "1.0.0" });
			// Stopped here (no restore); the next pack's first step finds the clone's package.json put aside.
			step("write");
			expect(manifest()).toEqual({ name: "x", version: "1.0.0" });
			step("restore");
			expect(readFileSync(join(clone, "package.json"), "utf8")).toBe(original);
			expect(readdirSync(clone).sort()).toEqual(["package.json", "scripts"]);
			step("restore");
			expect(readFileSync(join(clone, "package.json"), "utf8")).toBe(original);
		} finally {
			rmSync(clone, { recursive: true, force: true });
		}
	});
});

describe("projects that install the tarball", () => {
	const ipn = vector("transaction-ipn-2.0");
	const entries = [
		"merchant-gateway",
		"merchant-gateway/signing",
		"merchant-gateway/testing",
		"merchant-gateway/testing/msw",
		"merchant-gateway/opentelemetry",
		"merchant-gateway/stores/redis",
		"merchant-gateway/stores/postgres",
	];
	/** What both module systems print: each entry's export count and a verified IPN's event id. */
	const expected = {
		eventId: `transaction:${ipn.opened.transactionId}:${ipn.opened.status}`,
		entries: Object.fromEntries(entries.map((entry) => [entry, true])),
	};
	const write = (dir: string, file: string, lines: string[]) => writeFileSync(join(dir, file), lines.join("\n"));
	/**
	 * A consumer project in one module system: loads every entry (`load` is `import(name)` or `require(name)`
	 * as an expression), verifies an IPN with the package, and prints what {@link expected} describes.
	 */
	const consumer = (type: "module" | "commonjs", imports: string[], load: string) => {
		const dir = project([...DEPENDENCIES, "msw", "@opentelemetry/api"], { type });
		writeFileSync(join(dir, "ipn.json"), ipn.message ?? "");
		writeFileSync(join(dir, "gateway-public.pem"), keys.gatewayPublic);
		write(dir, "main.js", [
			...imports,
			`const names = ${JSON.stringify(entries)};`,
			"const loaded = {};",
			`for (const name of names) loaded[name] = Object.keys(${load}).length > 0;`,
			'const body = readFileSync("ipn.json", "utf8");',
			'const gatewayPublicKey = readFileSync("gateway-public.pem", "utf8");',
			"const { eventId } = verifyNotification(body, { gatewayPublicKey });",
			"console.log(JSON.stringify({ eventId, entries: loaded }));",
		]);
		return dir;
	};

	it("ESM: every entry imports; an IPN verifies", async () => {
		const imports = [
			'import { readFileSync } from "node:fs";',
			'import { verifyNotification } from "merchant-gateway";',
		];
		const dir = consumer("module", imports, "await import(name)");
		const result = await exec(process.execPath, ["main.js"], dir);
		expect(result.code, result.output).toBe(0);
		expect(JSON.parse(result.output)).toEqual(expected);
	});

	it("CommonJS: every entry requires; an IPN verifies", async () => {
		const requires = [
			'const { readFileSync } = require("node:fs");',
			'const { verifyNotification } = require("merchant-gateway");',
		];
		const dir = consumer("commonjs", requires, "require(name)");
		const result = await exec(process.execPath, ["main.js"], dir);
		expect(result.code, result.output).toBe(0);
		expect(JSON.parse(result.output)).toEqual(expected);
	});

	const strict = {
		strict: true,
		skipLibCheck: false,
		noEmit: true,
		target: "es2022",
		exactOptionalPropertyTypes: true,
	};
	const typescriptProjects = [
		{
			name: "TypeScript, module nodenext (ESM, a .cts file, msw, OpenTelemetry)",
			packages: ["@types/node", "msw", "@opentelemetry/api"],
			compilerOptions: { module: "nodenext", moduleResolution: "nodenext", lib: ["es2023", "dom"], types: ["node"] },
			files: ["consumer.ts", "node-consumer.ts", "msw-consumer.ts", "otel-consumer.ts", "require-consumer.cts"],
		},
		{
			name: "TypeScript, moduleResolution bundler",
			packages: ["@types/node"],
			compilerOptions: { module: "esnext", moduleResolution: "bundler", lib: ["es2023"], types: ["node"] },
			files: ["consumer.ts", "node-consumer.ts"],
		},
		{
			name: "an edge TypeScript project without @types/node",
			packages: [],
			compilerOptions: { module: "esnext", moduleResolution: "bundler", lib: ["es2023", "webworker"], types: [] },
			files: ["consumer.ts"],
		},
	];

	// Each compiles Node's or msw's declarations too: about ten seconds of a shared core apiece.
	it.each(typescriptProjects)("$name: compiles with skipLibCheck off", { timeout: 180_000 }, async (each) => {
		const { packages: extra, compilerOptions, files } = each;
		const packages = [...DEPENDENCIES, ...extra];
		const dir = project(packages, { type: "module" });
		for (const file of files) copyFileSync(join(fixtures, file), join(dir, file));
		writeFileSync(
			join(dir, "tsconfig.json"),
			JSON.stringify({ compilerOptions: { ...strict, ...compilerOptions }, files }),
		);
		const result = await exec(process.execPath, [tsc, "-p", "tsconfig.json"], dir);
		expect(result.output).toBe("");
		expect(result.code).toBe(0);
	});
});
