import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../support/build.js";

// `npm run docs` builds the API reference from the TSDoc; its validation (typedoc.jsonc) refuses an
// export or a member without documentation. Checked here without writing the site.

const typedoc = join(root, "node_modules", "typedoc", "bin", "typedoc");
const options = join(root, "typedoc.jsonc");

function run(args: string[]): Promise<{ code: number; output: string }> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			[typedoc, "--options", options, "--emit", "none", ...args],
			{ cwd: root, timeout: 170_000 },
			(error, stdout, stderr) => {
				resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
			},
		);
	});
}

const scratch = mkdtempSync(join(tmpdir(), "merchant-gateway-typedoc-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the API reference", () => {
	it("documents every export of every entry point, and every member", { timeout: 180_000 }, async () => {
		const result = await run([]);
		expect(result.output).not.toMatch(/warning|error/i);
		expect(result.code).toBe(0);
	});

	it("the same settings refuse an undocumented export", { timeout: 180_000 }, async () => {
		const entry = join(scratch, "entry.ts");
		writeFileSync(entry, "/** Documented. */\nexport const documented = 1;\nexport function undocumented(): void {}\n");
		const tsconfig = join(scratch, "tsconfig.json");
		writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { strict: true, types: [] }, files: [entry] }));
		const result = await run(["--entryPoints", entry, "--tsconfig", tsconfig]);
		expect(result.output).toContain("undocumented");
		expect(result.output).toContain("does not have any documentation");
		expect(result.output).not.toMatch(/documented \(Variable\)/);
		expect(result.code).not.toBe(0);
	});
});
