import { randomBytes } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { temporaryPath } from "./state-layout.js";
import { fileError, type StateField, stateProblem } from "./state-problem.js";

// How the sandbox and the CLI open the files of a state directory: a symbolic link is never followed
// (O_NOFOLLOW), what was opened must be a regular file of this user (fstat, so nothing can be swapped in
// between), a new file is created exclusively (O_EXCL) and a temporary file has a name nobody could
// have planted. The folders themselves must belong to this user and be writable by no one else, as ssh
// requires of ~/.ssh. Windows has no such owners or mode bits: its file permissions decide there.

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL } = constants;
/** Undefined on Windows, where the checks on what was opened remain. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** Opening a FIFO planted in the directory would wait for a writer: this makes it fail at once, and fstat refuse it. */
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** This process's user id; undefined on Windows, which has no `process.getuid`. */
const uid = () => process.getuid?.();

/** The owners a private file or folder may have: this user, or root (who can write anywhere anyway). */
const trustedOwner = (owner: number, me: number) => owner === me || owner === 0;

/** Where a problem is reported: the option it comes from (`stateDir`, `keysDir`). */
export interface PrivateFileOptions {
	field?: StateField | undefined;
}

/** Writes `text` to a state file with `mode`, whatever the umask. */
type WriteFile<Result> = (path: string, text: string, mode: number, options?: PrivateFileOptions) => Promise<Result>;

/**
 * Checks the folder the state files live in: a directory owned by this user (or root) that neither its
 * group nor others may write. `followLink`: the folder is the path the user gave (which may be a link to
 * a directory of theirs); otherwise a link there (such as `keys/`) is refused.
 * @throws ConfigurationError naming the folder and the fix
 */
export async function checkPrivateFolder(path: string, options: PrivateFileOptions & { followLink: boolean }) {
	const field = options.field;
	let info: Stats;
	try {
		info = options.followLink ? await stat(path) : await lstat(path);
	} catch (error) {
		const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
		throw stateProblem(`${path} ${missing ? "does not exist" : `cannot be opened: ${fileError(error)}`}`, field);
	}
	if (info.isSymbolicLink()) throw stateProblem(`${path} ${LINK_FIX} (rm ${path})`, field);
	if (!info.isDirectory()) throw stateProblem(`${path} is not a directory: move it away, then start again`, field);
	const me = uid();
	if (me === undefined) return;
	if (!trustedOwner(info.uid, me)) {
		throw stateProblem(
			`${path} is owned by uid ${info.uid}, not you (uid ${me}): another user could change what the sandbox ` +
				"reads there; use a directory of your own",
			field,
		);
	}
	if ((info.mode & 0o022) !== 0) {
		throw stateProblem(
			`${path} may be written by other users (mode ${octal(info.mode)}): run chmod 700 ${path}`,
			field,
		);
	}
}

/** Creates the folder when it is missing (mode 0700), then checks it as `checkPrivateFolder` does. */
export async function makePrivateFolder(path: string, options: PrivateFileOptions & { followLink: boolean }) {
	await mkdir(path, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
		throw stateProblem(`cannot create ${path}: ${fileError(error)}`, options.field);
	});
	await checkPrivateFolder(path, options);
}

/**
 * The text of a state file, or undefined when there is none.
 * @throws ConfigurationError when it is a link, not a regular file, another user's, or unreadable
 */
export async function readPrivateFile(path: string, options: PrivateFileOptions = {}): Promise<string | undefined> {
	const file = await openPrivateFile(path, O_RDONLY, undefined, options);
	if (file === undefined) return undefined;
	try {
		return await file.readFile("utf8");
	} catch (error) {
		throw stateProblem(`${path} cannot be read: ${fileError(error)}`, options.field);
	} finally {
		await file.close();
	}
}

/**
 * Opens a state file as the caller asks (`flags`: O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_DSYNC...; never
 * O_TRUNC, which would empty a file before the checks), adding O_NOFOLLOW, then checks that what was opened
 * is a regular file of this user, and, to be written, has no other name (a hard link to a file elsewhere).
 * @returns undefined when the file does not exist (and `flags` do not create it)
 * @throws ConfigurationError naming the file and the fix
 */
export async function openPrivateFile(
	path: string,
	flags: number,
	mode: number | undefined,
	options: PrivateFileOptions = {},
): Promise<FileHandle | undefined> {
	const field = options.field;
	const use = (flags & (O_WRONLY | O_RDWR)) === 0 ? "read" : "write";
	let file: FileHandle;
	try {
		file = await open(path, (use === "read" ? flags | O_NONBLOCK : flags) | O_NOFOLLOW, mode);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" && (flags & O_CREAT) === 0) return undefined;
		// ELOOP on Linux and macOS, EMLINK on FreeBSD: the last part of the path is a link.
		if ((code === "ELOOP" || code === "EMLINK") && (await lstat(path).catch(() => undefined))?.isSymbolicLink())
			throw stateProblem(`${path} ${LINK_FIX} (rm ${path})`, field);
		throw stateProblem(`${path} cannot be ${use === "read" ? "read" : "written"}: ${fileError(error)}`, field);
	}
	try {
		const problem = openedProblem(await file.stat(), use);
		if (problem) throw stateProblem(`${path} ${problem}`, field);
	} catch (error) {
		await file.close();
		throw error;
	}
	return file;
}

/**
 * Creates a new file holding `text`; one that exists (even as a dangling link) is left alone.
 * @returns false when the name was taken
 */
export const createPrivateFile: WriteFile<boolean> = async (path, text, mode, options = {}) => {
	let file: FileHandle;
	try {
		file = await open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
		throw stateProblem(`cannot write ${path}: ${fileError(error)}`, options.field);
	}
	try {
		// The umask may have narrowed it; O_EXCL made it, so it is ours to set.
		await file.chmod(mode);
		await file.writeFile(text, "utf8");
		await file.sync();
	} catch (error) {
		await file.close();
		await unlink(path).catch(() => {});
		throw stateProblem(`cannot write ${path}: ${fileError(error)}`, options.field);
	}
	await file.close();
	return true;
};

/**
 * Replaces a state file so that a crash leaves either the old or the new one: a new temporary file of a
 * name nobody can have planted, synced, then renamed over `path` (which replaces a link there, never what it
 * points at), and the folder synced.
 */
export const replacePrivateFile: WriteFile<void> = async (path, text, mode, options = {}) => {
	const temp = temporaryPath(path, randomBytes(6).toString("hex"));
	if (!(await createPrivateFile(temp, text, mode, options))) {
		throw stateProblem(`cannot write ${temp}: it appeared while the sandbox was writing it`, options.field);
	}
	try {
		await rename(temp, path);
	} catch (error) {
		await unlink(temp).catch(() => {});
		throw stateProblem(`cannot write ${path}: ${fileError(error)}`, options.field);
	}
	await syncFolder(dirname(path));
};

/** Makes a rename durable. Some systems (Windows) cannot open a folder to sync it: the rename stands as it is. */
export async function syncFolder(dir: string): Promise<void> {
	let folder: FileHandle | undefined;
	try {
		folder = await open(dir, O_RDONLY | O_NOFOLLOW);
		await folder.sync();
	} catch {
		// not supported here
	} finally {
		await folder?.close();
	}
}

const LINK_FIX =
	"is a symbolic link, and the sandbox follows no link in its state directory: remove the link, then start again";

/** What is wrong with a file just opened in a state directory, if anything. */
function openedProblem(info: Stats, use: "read" | "write"): string | undefined {
	if (!info.isFile()) {
		const kind = info.isDirectory() ? "a directory" : info.isFIFO() ? "a FIFO" : "not a regular file";
		return `is ${kind}, where the sandbox keeps a file: move it away, then start again`;
	}
	const me = uid();
	if (me !== undefined && !trustedOwner(info.uid, me))
		return `is owned by uid ${info.uid}, not you (uid ${me}): remove it, or use a directory of your own`;
	// A hard link to a file elsewhere would have the sandbox write into that file.
	if (use === "write" && info.nlink > 1 && process.platform !== "win32")
		return "has another name (a hard link to a file elsewhere): remove it, then start again";
	return undefined;
}

/** A file's permission bits as chmod takes them: 0755. */
export const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;
