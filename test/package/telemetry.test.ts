import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerProject, DEPENDENCIES, type PackedPackage, packedPackage } from "../support/packed.js";
import { keys } from "../support/vectors.js";

// @opentelemetry/api is an optional peer dependency, imported only by merchant-gateway/opentelemetry.
// Projects that install the packed package without it (as most merchants will) see no difference: the calls
// work, no @opentelemetry module is even looked up, a bundler builds them. Projects that turn the
// instrumentation on record the calls, from ESM and CommonJS alike, and across both builds of the package.

let packed: PackedPackage;
const projects: Array<{ cleanup(): void }> = [];
beforeAll(async () => {
	packed = await packedPackage();
}, 300_000);
afterAll(() => {
	for (const project of projects) project.cleanup();
});

/** Linked from this repository: their own dependencies resolve from there. */
const OTEL = ["@opentelemetry/api", "@opentelemetry/sdk-trace"];

function project(packages: readonly string[], type: "module" | "commonjs"): string {
	const made = consumerProject(packed.tarball, { packages, packageJson: { type } });
	projects.push(made);
	writeFileSync(join(made.dir, "keys.json"), JSON.stringify(keys));
	return made.dir;
}

function node(dir: string, file: string): Promise<{ code: number; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		execFile(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) => {
			resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
		});
	});
}

/**
 * The consumer's program: a checkout created through the client against the sandbox (in process), with
 * a logger that keeps warnings. `tracerProvider` is `"none"` (no instrumentation), `"option"` (a span
 * recorder given to the instrumentation) or `"global"` (registered with the API). `loadEntry` loads
 * merchant-gateway/opentelemetry (by default as `load` does). It prints what happened and which modules it
 * loaded.
 */
function program(
	load: (name: string) => string,
	tracerProvider: "none" | "option" | "global",
	loadEntry: (name: string) => string = load,
): string {
	const withSdk = tracerProvider !== "none";
	return [
		'const { readFileSync } = process.getBuiltinModule("node:fs");',
		'const { registerHooks } = process.getBuiltinModule("node:module");',
		"const attempted = new Set();",
		"const resolved = new Set();",
		"registerHooks({ resolve(specifier, context, next) { attempted.add(specifier);",
		"  const result = next(specifier, context); resolved.add(result.url); return result; } });",
		"(async () => {",
		`const { GatewayClient } = ${load("merchant-gateway")};`,
		`const { createSandbox } = ${load("merchant-gateway/testing")};`,
		'const keys = JSON.parse(readFileSync("keys.json", "utf8"));',
		...(withSdk
			? [
					`const { trace } = ${load("@opentelemetry/api")};`,
					`const { TracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = ${load("@opentelemetry/sdk-trace")};`,
					"const exporter = new InMemorySpanExporter();",
					"const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });",
				]
			: ["const exporter = { getFinishedSpans: () => [] };"]),
		...(tracerProvider === "global" ? ["trace.setGlobalTracerProvider(provider);"] : []),
		...(withSdk ? [`const { instrumentMerchantGateway } = ${loadEntry("merchant-gateway/opentelemetry")};`] : []),
		...(tracerProvider === "global" ? ["instrumentMerchantGateway();"] : []),
		...(tracerProvider === "option" ? ["instrumentMerchantGateway({ tracerProvider: provider });"] : []),
		"const sandbox = await createSandbox({",
		"  gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },",
		'  merchants: [{ merchantId: "M-1", publicKey: keys.merchantPublic }],',
		'  ipn: { fetch: async () => Response.json({ returnCode: "100" }) },',
		"});",
		"const warnings = [];",
		"const client = new GatewayClient({",
		'  baseUrl: "https://gateway.test", merchantId: "M-1",',
		"  privateKey: keys.merchantPrivate, gatewayPublicKey: keys.gatewayPublic,",
		"  fetch: (input, init) => sandbox.fetch(new Request(input, init)),",
		"  logger: { warn: (message) => warnings.push(message) },",
		"});",
		"const session = await client.checkout.create({",
		'  orderRef: "ORD-1", amount: 10.5, currency: "EUR", paymentMethod: "checkout",',
		'  callbackUrl: "https://shop.example/cb", notificationUrl: "https://shop.example/ipn",',
		'  cancelUrl: "https://shop.example/cancel", errorUrl: "https://shop.example/error", orderDescription: "Tea",',
		"});",
		'const otel = (set) => [...set].filter((item) => item.includes("@opentelemetry"));',
		"console.log(JSON.stringify({",
		'  created: typeof session.transactionId === "string",',
		"  warnings,",
		"  spans: exporter.getFinishedSpans().map((span) => span.name),",
		'  attempted: otel(attempted).filter((item) => !item.startsWith("file:")),',
		"  loaded: otel(resolved).map((url) => /@opentelemetry\\/[^/]+/.exec(url)[0]),",
		"}));",
		"})().catch((error) => { console.error(error); process.exit(1); });",
	].join("\n");
}

const esm = (name: string) => `await import(${JSON.stringify(name)})`;
const cjs = (name: string) => `require(${JSON.stringify(name)})`;

describe("without @opentelemetry/api installed", () => {
	it.each([
		["ESM", esm, "module"],
		["CommonJS", cjs, "commonjs"],
	] as const)("%s: the call works, the API is not even looked up", async (_, load, type) => {
		const dir = project(DEPENDENCIES, type);
		writeFileSync(join(dir, "main.js"), program(load, "none"));
		const result = await node(dir, "main.js");
		expect(result.stderr).toBe("");
		expect(JSON.parse(result.stdout)).toEqual({ created: true, warnings: [], spans: [], attempted: [], loaded: [] });
	});

	it("a bundler builds the project, for Node and for a Worker, and the bundle runs", async () => {
		const dir = project(DEPENDENCIES, "module");
		writeFileSync(join(dir, "main.js"), program(esm, "none"));
		for (const platform of ["node", "browser"] as const) {
			const result = await build({
				entryPoints: [join(dir, "main.js")],
				bundle: true,
				format: "esm",
				platform,
				conditions: platform === "browser" ? ["workerd", "worker", "browser"] : [],
				external: ["node:*"],
				outfile: join(dir, `bundle-${platform}.mjs`),
				logLevel: "silent",
			});
			expect(result.errors).toEqual([]);
		}
		const report = JSON.parse((await node(dir, "bundle-node.mjs")).stdout);
		expect(report).toEqual({ created: true, warnings: [], spans: [], attempted: [], loaded: [] });
	});
});

describe("with @opentelemetry/api installed", () => {
	// CommonJS requires the API's CommonJS build and the package imports its ESM build: the two share the
	// registered providers through the API's global registry.
	it.each([
		["ESM", "an option", esm, "module", "option"],
		["ESM", "the global one", esm, "module", "global"],
		["CommonJS", "an option", cjs, "commonjs", "option"],
		["CommonJS", "the global one", cjs, "commonjs", "global"],
	] as const)("%s, the tracer provider as %s: the call's span is recorded", async (_, __, load, type, provider) => {
		const dir = project([...DEPENDENCIES, ...OTEL], type);
		writeFileSync(join(dir, "main.js"), program(load, provider));
		const result = await node(dir, "main.js");
		expect(result.stderr).toBe("");
		const report = JSON.parse(result.stdout);
		expect(report).toMatchObject({ created: true, warnings: [], spans: ["checkout.create"] });
		expect(report.loaded).toContain("@opentelemetry/api");
	});

	it("the instrumentation required from CommonJS records the calls of the client imported as ESM", async () => {
		const dir = project([...DEPENDENCIES, ...OTEL], "commonjs");
		writeFileSync(join(dir, "main.js"), program(esm, "global", cjs));
		const result = await node(dir, "main.js");
		expect(result.stderr).toBe("");
		expect(JSON.parse(result.stdout)).toMatchObject({ created: true, spans: ["checkout.create"] });
	});
});
