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
let handOver: (() => void) | undefined;
let stopping = false;
const stopRequested = new Promise<void>((resolve) => {
	handOver = resolve;
});
let commandListens = false;

/**
 * Ends the process by the signal itself, its default action restored: shells report 130 or 143 as for any
 * program. process.exit() would first wait for the threads that read files, and one opening a FIFO that
 * nobody writes to never returns.
 */
function endBy(signal: "SIGINT" | "SIGTERM"): void {
	process.stderr.write(`\nmerchant-gateway: stopped by ${signal}\n`);
	process.removeAllListeners(signal);
	process.kill(process.pid, signal);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
	process.on(signal, () => {
		if (commandListens && !stopping) {
			stopping = true;
			handOver?.();
			return;
		}
		endBy(signal);
	});
}

const [{ runCli }, { readCapped }] = await Promise.all([import("./run.js"), import("./input.js")]);

const code = await runCli(process.argv.slice(2), {
	stdout: (text) => process.stdout.write(text),
	stderr: (text) => process.stderr.write(text),
	readStdin: (maxBytes) => {
		if (process.stdin.isTTY) process.stderr.write("Reading standard input: paste the text, then press Ctrl+D.\n");
		return readCapped(process.stdin, maxBytes);
	},
	untilStopped: () => {
		commandListens = true;
		return stopRequested;
	},
});
// Not process.exit(): it could cut off output still flowing into a pipe.
process.exitCode = code;
