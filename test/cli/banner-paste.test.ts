import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type SandboxProcess, startSandboxProcess } from "./control-support.js";
import { runCliProcess } from "./spawn.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const base = mkdtempSync(join(tmpdir(), "mg banner "));

/**
 * A shell whose `npx merchant-gateway` runs this checkout's CLI: each suggested line is handed to `sh -c`
 * exactly as printed, quoting included (the directories here have spaces in their names).
 */
function pastingShell(): (line: string) => Promise<{ code: number; out: string; err: string }> {
	const bin = join(base, "bin");
	mkdirSync(bin, { recursive: true });
	const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
	const cli = [process.execPath, "--import", here("./ts-resolve-hook.mjs"), here("../../src/cli/main.ts")];
	writeFileSync(
		join(bin, "npx"),
		[
			"#!/bin/sh",
			'[ "$1" = merchant-gateway ] || { echo "this npx runs merchant-gateway only" >&2; exit 127; }',
			"shift",
			`exec ${cli.map(quote).join(" ")} "$@"`,
			"",
		].join("\n"),
	);
	chmodSync(join(bin, "npx"), 0o755);
	const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` };
	return (line) =>
		new Promise((resolve) => {
			execFile("sh", ["-c", line], { env }, (error, out, err) => {
				resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, out, err });
			});
		});
}

const paste = pastingShell();
const publicUrl = "https://pay.shop.test";
const stateDir = (name: string) => join(base, name, "state dir");

const COMBINATIONS: [string, string[]][] = [
	["no flags", []],
	["-v 2.1", ["-v", "2.1"]],
	["--public-url", ["--public-url", publicUrl]],
	["--state-dir", ["--state-dir", stateDir("alone")]],
	["--keys-dir with -m and -v 2.1", ["--keys-dir", join(base, "keys dir"), "-m", "shop", "-v", "2.1"]],
	[
		"-v 2.1, -m, --public-url and --state-dir",
		["-v", "2.1", "-m", "shop", "--public-url", publicUrl, "--state-dir", stateDir("all")],
	],
];

describe.each(COMBINATIONS)("the banner of sandbox %s", (_name, flags) => {
	let sandbox: SandboxProcess;
	beforeAll(async () => {
		sandbox = await startSandboxProcess(flags);
	});
	afterAll(() => sandbox?.stop());

	test("every command it suggests runs as pasted", async () => {
		const suggested = [...sandbox.banner.matchAll(/^ {2}(npx merchant-gateway .*)$/gm)].map((match) => match[1] ?? "");
		expect(suggested.map((line) => line.split(" ").slice(2, 4).join(" "))).toEqual([
			"checkout create",
			"sandbox transactions",
			"sandbox ipn",
			"sandbox clock",
		]);
		const outputs: string[] = [];
		for (const line of suggested) {
			const result = await paste(line);
			expect(result.err, line).toBe("");
			expect(result.code, line).toBe(0);
			outputs.push(result.out);
		}
		const checkout = outputs[0] ?? "";
		const transactions = await paste(suggested[1] ?? "");
		const link = /^payment link:\n(\S+)$/m.exec(checkout)?.[1] ?? "";
		const origin = flags.includes("--public-url") ? publicUrl : sandbox.url;
		expect(link.startsWith(`${origin}/pay/`)).toBe(true);
		const id = /^transaction id: (\S+)$/m.exec(checkout)?.[1] ?? "";
		expect(transactions.out).toMatch(new RegExp(`^${id} +cli-[0-9a-f]+ +incomplete +10\\.00 +EUR`, "m"));
	});

	test("stopped, it leaves no temporary directory behind", async () => {
		const dir = /^ {2}state dir: {8}(.+?) {3}\(/m.exec(sandbox.banner)?.[1] ?? "";
		expect(existsSync(dir)).toBe(true);
		await sandbox.stop();
		expect(existsSync(dir)).toBe(!sandbox.banner.includes("(temporary:"));
	});
});

describe("checkout create names the flag that fixes what the sandbox refused", () => {
	test("an unknown merchant id: the ids the sandbox knows and -m; another signing version: -v", async () => {
		const dir = stateDir("refusals");
		const sandbox = await startSandboxProcess(["--state-dir", dir, "-m", "shop", "-v", "2.1", "-q"]);
		const create = (...flags: string[]) =>
			runCliProcess(["checkout", "create", "--state-dir", dir, "--amount", "1", "--currency", "EUR", ...flags]);
		try {
			const unknown = await create("-m", "nobody");
			expect(unknown.code).toBe(1);
			expect(unknown.err).toContain("Invalid signature with merchantId: nobody");
			expect(unknown.err).toContain("(this sandbox has no merchant nobody; its merchant ids: shop)");
			expect(unknown.err).toContain("Pass one of its merchant ids with -m <id> (--merchant-id)");
			const version = await create("-v", "2.0");
			expect(version.code).toBe(1);
			expect(version.err).toContain("The sandbox signs 2.1: pass -v 2.1 (--sign-version)");
			// Without -v, the state directory says which version the sandbox signs.
			expect((await create()).code).toBe(0);
		} finally {
			await sandbox.stop();
		}
	});
});
