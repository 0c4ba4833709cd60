/** `npx merchant-gateway <command>`: the package's bin. */
import { nodeTooOld } from "../internal/node-floor.js";

// Before anything else is loaded: an old Node.js hears which version it needs, not a later, stranger failure.
const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
	process.stderr.write(`${tooOld}\n`);
	process.exit(1);
}

// Installed before the command loads, so no Ctrl+C is ever swallowed: a command that asked for the signals
// (io.untilStopped) stops cleanly on the first; any other, or a second signal, ends the process at once.
const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
let handOver: (() => void) | undefined;
let stopping = false;
const stopRequested = new Promise<void>((resolve) => {
	handOver = resolve;
});
let commandListens = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
	process.on(signal, () => {
		if (commandListens && !stopping) {
			stopping = true;
			handOver?.();
			return;
		}
		process.stderr.write(`\nmerchant-gateway: stopped by ${signal}\n`);
		process.exit(SIGNAL_EXIT_CODES[signal]);
	});
}

const { runCli } = await import("./run.js");

const code = await runCli(process.argv.slice(2), {
	stdout: (text) => process.stdout.write(text),
	stderr: (text) => process.stderr.write(text),
	readStdin: async () => {
		if (process.stdin.isTTY) process.stderr.write("Reading standard input: paste the text, then press Ctrl+D.\n");
		const chunks: Buffer[] = [];
		for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
		return Buffer.concat(chunks).toString("utf8");
	},
	untilStopped: () => {
		commandListens = true;
		return stopRequested;
	},
});
// Not process.exit(): it could cut off output still flowing into a pipe.
process.exitCode = code;
