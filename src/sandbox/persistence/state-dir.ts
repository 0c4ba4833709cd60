import { constants } from "node:fs";
import { lstat, mkdir, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { generateKeyPair } from "../../signing/generate.js";
import { Journal } from "./journal.js";
import { type KeyFolder, type KeyFolderOptions, openKeyFolder } from "./key-files.js";
import { takeLock } from "./lock.js";
import { checkPrivateFolder, openPrivateFile, readPrivateFile, replacePrivateFile } from "./private-files.js";
import {
	applyEntry,
	decodeEntry,
	emptyState,
	encodeEntry,
	type LoadedEntry,
	type SavedState,
	type StateEntry,
	stateEntries,
} from "./state-entries.js";
import { isTemporaryOf, STATE_FILES } from "./state-layout.js";
import { fileError, stateProblem } from "./state-problem.js";

const FORMAT_NAME = "merchant-gateway sandbox state";
/** The state format this version reads and writes. */
const FORMAT_VERSION = 1;

/** What to do with the keys of a state directory (see `openKeyFolder`). */
export type StateDirOptions = Pick<KeyFolderOptions, "gatewayKeys" | "merchant">;

/** A state directory opened by one sandbox, which holds its lock until `close`. */
export interface StateDir {
	readonly dir: string;
	readonly keys: KeyFolder;
	/** The state saved by the sandboxes before this one: empty for a new directory. */
	readonly loaded: SavedState;
	/** Saves a record as it now stands (in the next group the journal writes). */
	record(entry: StateEntry): void;
	/** Resolves once every record saved so far is on disk. */
	written(): Promise<void>;
	/** Writes what is left, closes the journal and releases the lock (once, however often it is called). */
	close(): Promise<void>;
}

/**
 * Opens a sandbox state directory, creating it on first use: takes its lock (one sandbox per
 * directory), checks its format, opens its keys (written when missing) and loads its state, then
 * rewrites the snapshot from the state loaded and starts the journal afresh. The directory must be this
 * user's and writable by no one else, and no link in it is followed (see private-files.ts).
 * @throws ConfigurationError naming the file that stops the start and what to do about it.
 */
export async function openStateDir(dir: string, options: StateDirOptions = {}): Promise<StateDir> {
	try {
		await mkdir(dir, { recursive: true, mode: 0o700 });
	} catch (error) {
		throw stateProblem(`cannot create ${dir}: ${fileError(error)}`);
	}
	await checkPrivateFolder(dir, { followLink: true });
	const release = await takeLock(dir);
	try {
		await removeTemporaryFiles(dir);
		await checkFormat(dir);
		const keys = await openKeyFolder(join(dir, STATE_FILES.keys), { ...options, field: "stateDir", generate });
		const loaded = emptyState();
		for (const entry of await readEntries(dir, STATE_FILES.snapshot, false)) applyEntry(loaded, entry);
		for (const entry of await readEntries(dir, STATE_FILES.journal, true)) applyEntry(loaded, entry);
		await writeAtomically(join(dir, STATE_FILES.snapshot), [...stateEntries(loaded)].map(encodeEntry).join(""));
		const journal = await startJournal(join(dir, STATE_FILES.journal));
		let closed: Promise<void> | undefined;
		const close = async () => {
			try {
				await journal.close();
			} finally {
				await release();
			}
		};
		return {
			dir,
			keys,
			loaded,
			record: (entry) => journal.append(encodeEntry(entry)),
			written: () => journal.written(),
			close: () => {
				closed ??= close();
				return closed;
			},
		};
	} catch (error) {
		await release();
		throw error;
	}
}

const generate = () => generateKeyPair();

/** A new directory gets the format file; an existing one must carry the version this code reads. */
async function checkFormat(dir: string): Promise<void> {
	const path = join(dir, STATE_FILES.format);
	const text = await readPrivateFile(path);
	if (text === undefined) {
		for (const name of [STATE_FILES.snapshot, STATE_FILES.journal]) {
			if (await exists(join(dir, name))) {
				throw stateProblem(
					`${dir} has ${name} but no ${STATE_FILES.format}: put the file back, or move the directory away to ` +
						"start afresh",
				);
			}
		}
		await writeAtomically(path, `${JSON.stringify({ format: FORMAT_NAME, version: FORMAT_VERSION })}\n`);
		return;
	}
	let format: { format?: unknown; version?: unknown } | undefined;
	try {
		format = JSON.parse(text) as typeof format;
	} catch {
		format = undefined;
	}
	if (format?.format !== FORMAT_NAME) {
		throw stateProblem(
			`${path} is not a sandbox state format file: put back the one that was there, or move ${dir} away ` +
				"to start afresh",
		);
	}
	if (format.version !== FORMAT_VERSION) {
		throw stateProblem(
			`${path} says format version ${String(format.version)}, and this version of merchant-gateway reads ` +
				`version ${FORMAT_VERSION}: start the merchant-gateway version that wrote it, or move ${dir} away to ` +
				"start afresh",
		);
	}
}

/**
 * The entries of a state file, in order. The journal may end in a line cut short by a crash: it was
 * never acknowledged (answers wait until their line is on disk), so it is left out. Anything else
 * that does not read stops the start.
 */
async function readEntries(dir: string, name: string, tornTailAllowed: boolean): Promise<LoadedEntry[]> {
	const path = join(dir, name);
	const text = await readPrivateFile(path);
	if (text === undefined) return [];
	const lines = text.split("\n");
	const last = lines.pop();
	const fix = `restore it from a backup, or move ${dir} away to start afresh`;
	if (last !== "" && !tornTailAllowed) throw stateProblem(`${path} ends in the middle of a line: ${fix}`);
	return lines.map((line, index) => {
		const decoded = decodeEntry(line);
		if ("entry" in decoded) return decoded.entry;
		throw stateProblem(`${path} line ${index + 1} cannot be read: ${decoded.problem}; ${fix}`);
	});
}

/**
 * The journal, emptied. Opened with O_DSYNC where the system has it, so each group's write returns once
 * it is on disk: one system call per group instead of a write and an fdatasync.
 */
async function startJournal(path: string): Promise<Journal> {
	const { O_APPEND, O_CREAT, O_WRONLY, O_DSYNC } = constants;
	const file = await openPrivateFile(path, O_APPEND | O_CREAT | O_WRONLY | (O_DSYNC ?? 0), 0o600);
	if (!file) throw stateProblem(`cannot write ${path}: ${fileError({ code: "ENOENT" })}`);
	try {
		await file.truncate(0);
		await file.datasync();
		return new Journal(file, 0, { syncedWrites: O_DSYNC !== undefined });
	} catch (error) {
		await file.close();
		throw stateProblem(`cannot write ${path}: ${fileError(error)}`);
	}
}

/** Replaces a file so that a crash leaves either the old or the new one. */
function writeAtomically(path: string, text: string): Promise<void> {
	return replacePrivateFile(path, text, 0o600);
}

/** Temporary files a crash left behind (the lock is held: no other sandbox is writing one). */
async function removeTemporaryFiles(dir: string): Promise<void> {
	const names = [STATE_FILES.format, STATE_FILES.snapshot, STATE_FILES.running];
	for (const entry of await readdir(dir).catch(() => [])) {
		if (names.some((name) => isTemporaryOf(entry, name))) await unlink(join(dir, entry)).catch(() => {});
	}
}

/** Whether a name exists in the directory, as a file, a link (dangling or not) or anything else. */
async function exists(path: string): Promise<boolean> {
	return lstat(path).then(
		() => true,
		() => false,
	);
}
