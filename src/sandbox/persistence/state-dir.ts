import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, lstat, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { parseJsonObject } from "../../internal/plain-object.js";
import { generateKeyPair } from "../../signing/generate.js";
import { Journal, type JournalLine, type JournalListener } from "./journal.js";
import { type KeyFolder, type KeyFolderOptions, openKeyFolder } from "./key-files.js";
import { takeLock } from "./lock.js";
import {
	makePrivateFolder,
	openPrivateFile,
	readPrivateFile,
	replacePrivateFile,
	syncFolder,
} from "./private-files.js";
import {
	applyEntry,
	decodeEntry,
	emptyState,
	encodeEntry,
	entryKey,
	type LoadedEntry,
	type SavedState,
	type StateEntry,
	stateEntries,
} from "./state-entries.js";
import { isTemporaryOf, STATE_FILES, temporaryPath } from "./state-layout.js";
import { fileError, stateProblem } from "./state-problem.js";

/** The journal's size past which a running sandbox folds it into the snapshot. */
const FOLD_JOURNAL_AT = 4 * 1024 * 1024;

const FORMAT_NAME = "merchant-gateway sandbox state";
/** The state format this version reads and writes. */
const FORMAT_VERSION = 1;

/** What to do with the keys of a state directory (see `openKeyFolder`), and when to fold the journal. */
export interface StateDirOptions extends Pick<KeyFolderOptions, "gatewayKeys" | "merchant"> {
	/** Journal bytes past which the state is folded into the snapshot while running. @default 4 MiB */
	foldJournalAt?: number | undefined;
	/** @internal Wraps each journal file as it is opened (tests make its writes fail or complete late). */
	wrapJournalFile?: ((file: FileHandle) => FileHandle) | undefined;
}

/**
 * A state directory opened by one sandbox, which holds its lock until `close`. Its journal's `mark` and
 * `written` tell whether the records saved since a mark are on disk (see `onLost` for those that are not).
 */
export interface StateDir extends Pick<Journal, "mark" | "written"> {
	readonly dir: string;
	readonly keys: KeyFolder;
	/** The state saved by the sandboxes before this one: empty for a new directory. */
	readonly loaded: SavedState;
	/** Saves a record as it now stands (in the next group the journal writes). */
	record(entry: StateEntry): void;
	/**
	 * Calls `listener` with the state on disk when a write failed: the records that could not be written,
	 * and every record saved after them, are not on disk and must leave the books.
	 */
	onLost(listener: (onDisk: SavedState) => void): void;
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
	await makePrivateFolder(dir, { followLink: true });
	const release = await takeLock(dir);
	try {
		await removeTemporaryFiles(dir);
		await checkFormat(dir);
		const keys = await openKeyFolder(join(dir, STATE_FILES.keys), {
			...options,
			field: "stateDir",
			generate: generateKeyPair,
		});
		const loaded = emptyState();
		for (const entry of await readEntries(dir, STATE_FILES.snapshot, false)) applyEntry(loaded, entry);
		for (const entry of await readEntries(dir, STATE_FILES.journal, true)) applyEntry(loaded, entry);
		// What is on disk, one line per record: the snapshot a fold writes, and the state a failed write returns to.
		const onDisk = new Map<string, string>();
		for (const entry of stateEntries(loaded)) onDisk.set(entryKey(entry), encodeEntry(entry));
		await replacePrivateFile(join(dir, STATE_FILES.snapshot), [...onDisk.values()].join(""), 0o600);
		let lostListener: ((state: SavedState) => void) | undefined;
		let folding: Promise<void> | undefined;
		const foldAt = options.foldJournalAt ?? FOLD_JOURNAL_AT;
		const wrap = options.wrapJournalFile ?? ((file: FileHandle) => file);
		const openJournal = async (path: string, create: number) => wrap(await openJournalFile(path, create));
		const journal: Journal = await startJournal(join(dir, STATE_FILES.journal), openJournal, {
			written: (lines: readonly JournalLine[]) => {
				for (const line of lines) onDisk.set(line.key, line.text);
				if (folding === undefined && journal.size >= foldAt) {
					folding = foldJournal(dir, journal, openJournal, [...onDisk.values()].join("")).finally(() => {
						folding = undefined;
					});
				}
			},
			lost: () => lostListener?.(stateOf(onDisk.values())),
		});
		let closed: Promise<void> | undefined;
		const close = async () => {
			try {
				await folding;
				await journal.close();
			} finally {
				await release();
			}
		};
		return {
			dir,
			keys,
			loaded,
			record: (entry) => journal.append({ key: entryKey(entry), text: encodeEntry(entry) }),
			mark: () => journal.mark(),
			written: (mark) => journal.written(mark),
			onLost: (listener) => {
				lostListener = listener;
			},
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

/** A new directory gets the format file; an existing one must carry the version this code reads. */
async function checkFormat(dir: string): Promise<void> {
	const path = join(dir, STATE_FILES.format);
	const text = await readPrivateFile(path);
	if (text === undefined) {
		for (const name of [STATE_FILES.snapshot, STATE_FILES.journal]) {
			// A name there counts as a file, a link (dangling or not) or anything else.
			if (await lstat(join(dir, name)).catch(() => undefined)) {
				throw stateProblem(
					`${dir} has ${name} but no ${STATE_FILES.format}: put the file back, or move the directory away to ` +
						"start afresh",
				);
			}
		}
		await replacePrivateFile(path, `${JSON.stringify({ format: FORMAT_NAME, version: FORMAT_VERSION })}\n`, 0o600);
		return;
	}
	const format = parseJsonObject(text);
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

/** The state that lines of entries (each a whole record, in order) describe. */
function stateOf(lines: Iterable<string>): SavedState {
	const state = emptyState();
	for (const line of lines) {
		const decoded = decodeEntry(line.slice(0, -1));
		// Every line was encoded by this process; one that does not read back is a bug, not a file problem.
		if (!("entry" in decoded)) throw new Error(`a saved record does not read back: ${decoded.problem}`);
		applyEntry(state, decoded.entry);
	}
	return state;
}

/**
 * Folds the journal into the snapshot while the sandbox runs, without holding up answers for the
 * snapshot's write: the records on disk go to a new snapshot (renamed over the old one) while the
 * journal keeps taking lines; then, between two groups, the journal moves to a new file holding only
 * the lines written since. A crash at any point loads the same state: every line replaces its record
 * whole, so the new snapshot followed by the old journal is the state the journal alone described.
 * A fold that fails (a full disk) leaves the journal as it was, to be folded once it grows again.
 */
async function foldJournal(
	dir: string,
	journal: Journal,
	openJournal: (path: string, create: number) => Promise<FileHandle>,
	snapshot: string,
): Promise<void> {
	journal.retain();
	try {
		await replacePrivateFile(join(dir, STATE_FILES.snapshot), snapshot, 0o600);
		const next = temporaryPath(join(dir, STATE_FILES.journal), randomBytes(6).toString("hex"));
		await journal.moveTo(async (tail) => {
			const file = await openJournal(next, constants.O_CREAT | constants.O_EXCL);
			try {
				const bytes = Buffer.from(tail, "utf8");
				for (let offset = 0; offset < bytes.length; ) offset += (await file.write(bytes, offset)).bytesWritten;
				await file.datasync();
				await rename(next, join(dir, STATE_FILES.journal));
			} catch (error) {
				await file.close().catch(() => {});
				await unlink(next).catch(() => {});
				throw error;
			}
			await syncFolder(dir);
			return file;
		});
	} catch {
		journal.forget();
	}
}

/**
 * The journal, emptied. Opened with O_DSYNC where the system has it, so each group's write returns once
 * it is on disk: one system call per group instead of a write and an fdatasync.
 */
async function startJournal(
	path: string,
	openJournal: (path: string, flags: number) => Promise<FileHandle>,
	listener: JournalListener,
): Promise<Journal> {
	const file = await openJournal(path, constants.O_CREAT);
	try {
		await file.truncate(0);
		await file.datasync();
		return new Journal(file, 0, { syncedWrites: constants.O_DSYNC !== undefined, listener });
	} catch (error) {
		await file.close();
		throw stateProblem(`cannot write ${path}: ${fileError(error)}`);
	}
}

/**
 * A journal file opened for appending, with O_DSYNC where the system has it; `create` is O_CREAT (the
 * journal) or O_CREAT | O_EXCL (a new file nobody else can have made).
 */
async function openJournalFile(path: string, create: number): Promise<FileHandle> {
	const { O_APPEND, O_WRONLY, O_DSYNC } = constants;
	const file = await openPrivateFile(path, O_APPEND | create | O_WRONLY | (O_DSYNC ?? 0), 0o600);
	if (!file) throw stateProblem(`cannot write ${path}: ${fileError({ code: "ENOENT" })}`);
	return file;
}

/** Temporary files a crash left behind (the lock is held: no other sandbox is writing one). */
async function removeTemporaryFiles(dir: string): Promise<void> {
	const names = [STATE_FILES.format, STATE_FILES.snapshot, STATE_FILES.journal, STATE_FILES.running];
	for (const entry of await readdir(dir).catch(() => [])) {
		if (names.some((name) => isTemporaryOf(entry, name))) await unlink(join(dir, entry)).catch(() => {});
	}
}
