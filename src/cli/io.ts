import { readFile } from "node:fs/promises";

/** Where a command reads and writes; the real process, or a test's buffers. */
export interface CliIo {
	stdout(text: string): void;
	stderr(text: string): void;
	/** Reads standard input to the end. */
	readStdin(): Promise<string>;
	/** Resolves when the user asks a long-running command to stop (Ctrl+C). */
	stopped: Promise<void>;
}

/** Exit codes scripts can rely on. */
export const EXIT = {
	ok: 0,
	/** Verification failed, a file exists, the input is not what the command needs. */
	failure: 1,
	/** Bad flags or arguments: see --help. */
	usage: 2,
} as const;

/** A failure the command reports on stderr with its exit code. */
export class CliError extends Error {
	readonly exitCode: number;

	// A declared field rather than a parameter property: the CLI's sources also run under Node's type stripping.
	constructor(message: string, exitCode: number = EXIT.failure) {
		super(message);
		this.exitCode = exitCode;
	}
}

export const usageError = (message: string) => new CliError(`${message} (see --help)`, EXIT.usage);

/** Reads a file, or standard input for `-`. */
export async function readInput(path: string, io: CliIo): Promise<string> {
	if (path === "-") return io.readStdin();
	try {
		return await readFile(path, "utf8");
	} catch (error) {
		throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
	}
}

/** Reads a key file; its content is never echoed. */
export async function readKeyFile(path: string | undefined, flag: string): Promise<string> {
	if (!path) throw usageError(`${flag} <file> is required`);
	try {
		return await readFile(path, "utf8");
	} catch (error) {
		throw new CliError(`cannot read ${flag} file ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
	}
}
