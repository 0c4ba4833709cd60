import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const hook = fileURLToPath(new URL("./ts-resolve-hook.mjs", import.meta.url));
const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

/** Runs `merchant-gateway <argv>` in a new Node process from the TypeScript sources, as a shell would. */
export function runCliProcess(argv: string[], stdin = ""): Promise<{ code: number | null; out: string; err: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ["--import", hook, main, ...argv], { stdio: ["pipe", "pipe", "pipe"] });
		let out = "";
		let err = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			out += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			err += chunk;
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, out, err }));
		child.stdin.end(stdin);
	});
}
