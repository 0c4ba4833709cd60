import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";

const hook = fileURLToPath(new URL("./ts-resolve-hook.mjs", import.meta.url));
const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

/** Runs `merchant-gateway <argv>` in a new Node process from the TypeScript sources, as a shell would. */
export function runCliProcess(argv: string[], stdin = ""): Promise<{ code: number | null; out: string; err: string }> {
	const cli = startCliProcess(argv);
	cli.child.stdin?.end(stdin);
	return cli.exited.then(({ code }) => ({ code, out: cli.out(), err: cli.err() }));
}

/** A CLI process left running: its output so far, a wait for some text, and its end. */
export interface CliProcess {
	/** Its stdin is a pipe the test writes to, unless it was started with `stdinFrom`. */
	child: ChildProcess;
	out(): string;
	err(): string;
	/** Resolves with all of stdout once it contains `text` (rejects if the process ends first). */
	waitForOutput(text: string | RegExp): Promise<string>;
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `merchant-gateway <argv>` and leaves its stdin open, or, with `stdinFrom`, gives it that file as its
 * standard input, as a shell's `< file` does (`/dev/zero`, a FIFO).
 */
export function startCliProcess(argv: string[], options: { stdinFrom?: string } = {}): CliProcess {
	const stdinFd = options.stdinFrom === undefined ? undefined : openSync(options.stdinFrom, "r");
	const child = spawn(process.execPath, ["--import", hook, main, ...argv], {
		stdio: [stdinFd ?? "pipe", "pipe", "pipe"],
	});
	if (stdinFd !== undefined) closeSync(stdinFd);
	let out = "";
	let err = "";
	const waiters: (() => void)[] = [];
	child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
		out += chunk;
		for (const wake of waiters) wake();
	});
	child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
		err += chunk;
	});
	// A process that ends before reading all its input closes the pipe: that is not the test's failure.
	child.stdin?.on("error", () => {});
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
		child.on("error", reject);
		child.on("close", (code, signal) => {
			for (const wake of waiters) wake();
			resolve({ code, signal });
		});
	});
	const found = (text: string | RegExp) => (typeof text === "string" ? out.includes(text) : text.test(out));
	return {
		child,
		out: () => out,
		err: () => err,
		exited,
		waitForOutput: (text) =>
			new Promise((resolve, reject) => {
				const check = () => {
					if (found(text)) resolve(out);
					else if (child.exitCode !== null || child.signalCode !== null)
						reject(new Error(`the CLI ended before printing ${text}; stderr: ${err}`));
				};
				waiters.push(check);
				check();
			}),
	};
}
