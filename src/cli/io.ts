/** Where a command reads and writes; the real process, or a test's buffers. */
export interface CliIo {
	stdout(text: string): void;
	stderr(text: string): void;
	/**
	 * Reads standard input to the end, chunk by chunk; rejects with InputTooLarge (input.ts) as soon as more
	 * than `maxBytes` arrived, without reading further.
	 */
	readStdin(maxBytes: number): Promise<string>;
	/**
	 * Hands Ctrl+C (SIGINT) and SIGTERM to the command, which then stops cleanly, and
	 * resolves when one arrives. A command that never calls it is ended by a signal at
	 * once, by the signal itself (a shell reports 130 or 143); a second signal always ends the process at once.
	 */
	untilStopped(): Promise<void>;
}

/** Exit codes scripts can rely on. */
export const EXIT = {
	ok: 0,
	/** Verification failed, a file exists, the input is not what the command needs. */
	failure: 1,
	/** Bad flags or arguments: see --help. */
	usage: 2,
	/** Ended by Ctrl+C: the process ends by the signal, which shells report as 128 + SIGINT. */
	interrupted: 130,
	/** Ended by SIGTERM: shells report 128 + SIGTERM. */
	terminated: 143,
} as const;

/** A failure the command reports on stderr with its exit code. */
export class CliError extends Error {
	readonly exitCode: number;

	// A declared field rather than a parameter property (here and in input.ts): the CLI's sources also run under
	// Node's type stripping.
	constructor(message: string, exitCode: number = EXIT.failure) {
		super(message);
		this.exitCode = exitCode;
	}
}

export const usageError = (message: string) => new CliError(`${message} (see --help)`, EXIT.usage);

/** A file-system error code in words, the code kept for searching. */
export function fileProblem(error: unknown): string {
	const code = (error as NodeJS.ErrnoException).code;
	const words: Record<string, string> = {
		ENOENT: "no such file",
		EACCES: "permission denied",
		EPERM: "permission denied",
		EISDIR: "it is a directory",
		ENOTDIR: "a part of the path is not a directory",
		EEXIST: "it already exists",
	};
	return code === undefined ? "cannot be read" : `${words[code] ?? "error"} (${code})`;
}
