/** `npx merchant-gateway <command>`: the package's bin. */
import { nodeTooOld } from "../internal/node-floor.js";

// Before anything else is loaded: an old Node.js hears which version it needs, not a later, stranger failure.
const tooOld = nodeTooOld(process.versions.node);
if (tooOld) {
	process.stderr.write(`${tooOld}\n`);
	process.exit(1);
}
const { runCli } = await import("./run.js");

const stopped = new Promise<void>((resolve) => {
	for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
});

const code = await runCli(process.argv.slice(2), {
	stdout: (text) => process.stdout.write(text),
	stderr: (text) => process.stderr.write(text),
	readStdin: async () => {
		const chunks: Buffer[] = [];
		for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
		return Buffer.concat(chunks).toString("utf8");
	},
	stopped,
});
// Not process.exit(): it could cut off output still flowing into a pipe.
process.exitCode = code;
