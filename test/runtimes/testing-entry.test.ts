import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerProject, DEPENDENCIES, packedPackage } from "../support/packed.js";
import { keys } from "../support/vectors.js";
import { BUN, DENO, run } from "./runtime.js";

// `merchant-gateway/testing` needs no msw: only `merchant-gateway/testing/msw` imports it. In a
// project without msw, a script on the testing entry runs and its runtime exits by itself (msw,
// once imported, keeps Deno running), and the MSW entry fails naming the missing package.

let project: ReturnType<typeof consumerProject>;
const here = fileURLToPath(new URL(".", import.meta.url));

beforeAll(async () => {
	const { tarball } = await packedPackage();
	project = consumerProject(tarball, { packages: DEPENDENCIES, packageJson: { type: "module" } });
	copyFileSync(join(here, "testing-script.mjs"), join(project.dir, "testing-script.mjs"));
	writeFileSync(join(project.dir, "keys.json"), JSON.stringify(keys));
}, 300_000);
afterAll(() => project?.cleanup());

/** Long enough never to cut a slow but finishing run short; a runtime kept alive runs into it. */
const EXIT_WITHIN_MS = 60_000;

describe("a script on merchant-gateway/testing, without msw installed", () => {
	it.each([
		["node", process.execPath, ["testing-script.mjs", "keys.json"]],
		["bun", BUN, ["testing-script.mjs", "keys.json"]],
		["deno", DENO, ["run", "--allow-read", "--allow-env", "--allow-net=127.0.0.1", "testing-script.mjs", "keys.json"]],
	])("%s: charges through the in-process sandbox and exits by itself", async (_name, command, args) => {
		const result = await run(command, args, project.dir, EXIT_WITHIN_MS);
		expect(result.stderr).toBe("");
		expect(result.code).toBe(0);
		expect(JSON.parse(result.stdout)).toEqual({ outcome: "success", delivery: "network_error" });
	});

	it("the MSW entry fails naming msw, from ESM and from CommonJS; the testing entry loads from both", async () => {
		const script = [
			'import { createRequire } from "node:module";',
			"const require = createRequire(import.meta.url);",
			"const outcome = (load) => { try { load(); return 'loaded'; } catch (error) { return error.message; } };",
			"const esm = await import('merchant-gateway/testing/msw').then(() => 'loaded', (error) => error.message);",
			"console.log(JSON.stringify({",
			"  esm,",
			"  cjs: outcome(() => require('merchant-gateway/testing/msw')),",
			"  testingEsm: typeof (await import('merchant-gateway/testing')).createSandbox,",
			"  testingCjs: typeof require('merchant-gateway/testing').createSandbox,",
			"}));",
		].join("\n");
		writeFileSync(join(project.dir, "msw-entry.mjs"), script);
		const result = await run(process.execPath, ["msw-entry.mjs"], project.dir);
		expect(result.code).toBe(0);
		const outcome = JSON.parse(result.stdout);
		expect(outcome.esm).toMatch(/Cannot find (package|module) 'msw'/);
		expect(outcome.cjs).toMatch(/Cannot find (package|module) 'msw'/);
		expect(outcome).toMatchObject({ testingEsm: "function", testingCjs: "function" });
	});
});
