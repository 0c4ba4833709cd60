import { createReadStream } from "node:fs";
import { CliError, type CliIo, fileProblem } from "./io.js";

/**
 * The most a command reads from one input (a message, a URL, a key file): 1 MiB, the client's own
 * response limit. No gateway message or key comes near it; a larger input is refused after reading
 * that much, so `/dev/zero` or a wrong 50 MB file costs neither memory nor time.
 */
export const MAX_INPUT_BYTES = 1024 * 1024;

/** What every reading command's --help says about it, wrapped for a terminal. */
export const INPUT_LIMIT_HELP = `Every input (a file, standard input, a key file) is read up to 1 MiB, the
client's own response limit: a gateway message is a few kilobytes, and a larger
input is refused without being read to its end.`;

/** Thrown by `readCapped` when a source holds more than its limit; the reader names the source. */
export class InputTooLarge extends Error {
	readonly maxBytes: number;

	constructor(maxBytes: number) {
		super(`more than ${maxBytes} bytes`);
		this.maxBytes = maxBytes;
	}
}

/**
 * Reads a source chunk by chunk and decodes it as UTF-8. Stops at the first chunk past `maxBytes`
 * (leaving the loop destroys a stream) and throws InputTooLarge.
 */
export async function readCapped(source: AsyncIterable<Uint8Array | string>, maxBytes: number): Promise<string> {
	const chunks: Uint8Array[] = [];
	let total = 0;
	for await (const chunk of source) {
		const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
		total += bytes.length;
		if (total > maxBytes) throw new InputTooLarge(maxBytes);
		chunks.push(bytes);
	}
	return Buffer.concat(chunks).toString("utf8");
}

/** `where` is "file <path>" or "on standard input". */
function tooLarge(what: string, where: string): CliError {
	return new CliError(
		`${what} ${where} is larger than 1 MiB, the most this command reads; ` +
			"no gateway message or key comes near that size: is it the right input?",
	);
}

/** A file read up to MAX_INPUT_BYTES. `what` names its content in errors, such as "the --key" or "the IPN body". */
export async function readFileCapped(path: string, what: string): Promise<string> {
	try {
		return await readCapped(createReadStream(path), MAX_INPUT_BYTES);
	} catch (error) {
		if (error instanceof InputTooLarge) throw tooLarge(what, `file ${path}`);
		throw new CliError(`cannot read ${what} file ${path}: ${fileProblem(error)}`);
	}
}

/** A file, or standard input for `-`, read up to MAX_INPUT_BYTES. `what` names its content in errors. */
export async function readInput(path: string, io: CliIo, what = "the input"): Promise<string> {
	if (path !== "-") return readFileCapped(path, what);
	try {
		return await io.readStdin(MAX_INPUT_BYTES);
	} catch (error) {
		if (error instanceof InputTooLarge) throw tooLarge(what, "on standard input");
		throw error;
	}
}
