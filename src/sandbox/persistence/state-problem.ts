import { ConfigurationError } from "../../errors/configuration-error.js";

/** The option a problem with saved files is reported on: a whole state directory, or a folder of keys only. */
export type StateField = "stateDir" | "keysDir";

/**
 * A state directory the sandbox cannot use: the message names the file and what to do.
 * The sandbox never replaces a file it cannot read.
 */
export function stateProblem(message: string, field: StateField = "stateDir"): ConfigurationError {
	return new ConfigurationError([{ field, message }], "sandbox state directory");
}

/** A file-system error code in words, the code kept for searching. */
export function fileError(error: unknown): string {
	const code = (error as NodeJS.ErrnoException).code;
	const words: Record<string, string> = {
		ENOENT: "no such file or directory",
		EACCES: "permission denied",
		EPERM: "permission denied",
		EISDIR: "it is a directory",
		ENOTDIR: "a part of the path is not a directory",
		ENOSPC: "no space left on the device",
		EROFS: "the file system is read-only",
	};
	return code === undefined ? (error as Error).message : `${words[code] ?? "error"} (${code})`;
}
