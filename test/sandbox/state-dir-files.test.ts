import {
	chmodSync,
	chownSync,
	constants,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { openStateDir, type StateDir } from "../../src/sandbox/persistence/state-dir.js";
import { keys } from "../support/vectors.js";
import { openAsUser } from "./support/as-user.js";

// The files of a state directory as openStateDir reads and writes them, without a sandbox on top: what a
// start cleans up or refuses, and what a fold or a failed journal write leaves on disk.

const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
const dirs: string[] = [];
const opened: StateDir[] = [];
afterEach(async () => {
	for (const state of opened.splice(0)) await state.close();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateDir(): string {
	const root = mkdtempSync(join(tmpdir(), "sandbox-files-"));
	dirs.push(root);
	return join(root, "state");
}

async function open(dir: string, options: Parameters<typeof openStateDir>[1] = {}): Promise<StateDir> {
	const state = await openStateDir(dir, { gatewayKeys, ...options });
	opened.push(state);
	return state;
}

async function close(state: StateDir): Promise<void> {
	opened.splice(opened.indexOf(state), 1);
	await state.close();
}

async function refusal(promise: Promise<unknown>): Promise<string> {
	const error = await promise.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(Error);
	return (error as Error).message;
}

const clock = (offsetMs: number) => ({ clock: { frozenAt: undefined, offsetMs } });

/** Wraps journal files so that a test sees them: `change` gets each file with its number (0: the start's). */
function journalFiles(change: (file: FileHandle, index: number) => Partial<FileHandle>) {
	let opened = 0;
	return (file: FileHandle): FileHandle => {
		const replaced = change(file, opened++);
		return new Proxy(file, {
			get: (target, property) => {
				const value = (
					property in replaced ? Reflect.get(replaced, property) : Reflect.get(target, property)
				) as unknown;
				return typeof value === "function" ? value.bind(property in replaced ? replaced : target) : value;
			},
		});
	};
}

const noSpace = async (): Promise<never> => {
	throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
};

/** A directory used twice: its format file, keys, a snapshot holding a record, and a journal. */
async function used(): Promise<string> {
	const dir = stateDir();
	const state = await open(dir);
	state.record(clock(5));
	await state.written();
	await close(state);
	await close(await open(dir));
	return dir;
}

describe("what a start cleans up or refuses", () => {
	test("a state directory given as a link to a directory of the user's is used", async () => {
		const dir = await used();
		const link = `${dir}-link`;
		symlinkSync(dir, link);
		const state = await open(link);
		expect(state.loaded.clock).toEqual({ frozenAt: undefined, offsetMs: 5 });
	});

	test("a state directory that cannot be created is refused, naming it", async () => {
		const root = mkdtempSync(join(tmpdir(), "sandbox-files-"));
		dirs.push(root);
		writeFileSync(join(root, "file"), "a file, not a folder\n");
		const dir = join(root, "file", "state");
		expect(await refusal(open(dir))).toContain(`cannot create ${dir}: `);
	});

	test("temporary files a crash left beside the state files are removed; other files stay", async () => {
		const dir = await used();
		const left = [
			"state-format.json.0a1b2c.tmp",
			"snapshot.ndjson.0a1b2c.tmp",
			"journal.ndjson.0a1b2c.tmp",
			"sandbox.json.0a1b2c.tmp",
		];
		const kept = ["notes.txt", "snapshot.ndjson.bak", "other.0a1b2c.tmp"];
		for (const name of [...left, ...kept]) writeFileSync(join(dir, name), "left behind\n");
		await close(await open(dir));
		const names = readdirSync(dir);
		for (const name of left) expect(names).not.toContain(name);
		for (const name of kept) expect(names).toContain(name);
	});

	// Root lists any directory, so the user is another one: the child process runs as root and drops to it.
	const asRoot = process.platform !== "win32" && process.getuid?.() === 0;
	test.skipIf(!asRoot)(
		"a directory of the user's own that cannot be listed (mode 0300) still opens (as the user nobody; needs root)",
		() => {
			const NOBODY = 65534;
			const root = mkdtempSync(join(tmpdir(), "sandbox-files-"));
			dirs.push(root);
			chmodSync(root, 0o711);
			const dir = join(root, "state");
			mkdirSync(dir);
			chownSync(dir, NOBODY, NOBODY);
			chmodSync(dir, 0o300);
			expect(openAsUser(NOBODY, "state", dir)).toEqual({ uid: NOBODY, opened: true });
			const names = readdirSync(dir);
			expect(names).toEqual(expect.arrayContaining(["state-format.json", "snapshot.ndjson", "journal.ndjson", "keys"]));
			expect(names).not.toContain("sandbox.lock");
			expect(statSync(join(dir, "journal.ndjson")).uid).toBe(NOBODY);
		},
	);

	test.each(["snapshot.ndjson", "journal.ndjson"])(
		"a directory with %s but no format file is refused",
		async (name) => {
			const dir = await used();
			rmSync(join(dir, "state-format.json"));
			for (const other of ["snapshot.ndjson", "journal.ndjson"]) if (other !== name) rmSync(join(dir, other));
			const message = await refusal(open(dir));
			expect(message).toContain(`${dir} has ${name} but no state-format.json`);
			expect(message).toContain("move the directory away to start afresh");
			expect(readdirSync(dir)).not.toContain("state-format.json");
		},
	);

	test("a format file of something else is refused, and left as it is", async () => {
		const dir = await used();
		const format = join(dir, "state-format.json");
		writeFileSync(format, '{"format":"something else","version":1}\n');
		expect(await refusal(open(dir))).toContain(`${format} is not a sandbox state format file`);
		writeFileSync(format, "not json\n");
		const message = await refusal(open(dir));
		expect(message).toContain(`${format} is not a sandbox state format file`);
		expect(message).toContain(`put back the one that was there, or move ${dir} away to start afresh`);
		expect(readFileSync(format, "utf8")).toBe("not json\n");
	});

	test("a snapshot that ends in the middle of a line is refused: only the journal may end so", async () => {
		const dir = await used();
		const snapshot = join(dir, "snapshot.ndjson");
		writeFileSync(snapshot, readFileSync(snapshot, "utf8").slice(0, -1));
		const message = await refusal(open(dir));
		expect(message).toContain(`${snapshot} ends in the middle of a line`);
		expect(message).toContain(`move ${dir} away to start afresh`);
	});

	test("a journal that cannot be emptied at the start stops it, naming the file, and frees the directory", async () => {
		const dir = await used();
		const failing = journalFiles(() => ({ truncate: noSpace }));
		const message = await refusal(open(dir, { wrapJournalFile: failing }));
		expect(message).toContain(`cannot write ${join(dir, "journal.ndjson")}`);
		const again = await open(dir);
		expect(again.loaded.clock).toEqual({ frozenAt: undefined, offsetMs: 5 });
	});
});

describe("folding the journal while running", () => {
	test("a journal that reaches the fold size exactly is folded", async () => {
		const dir = stateDir();
		const entry = clock(7);
		const state = await open(dir, { foldJournalAt: Buffer.byteLength(`${JSON.stringify(entry)}\n`) });
		state.record(entry);
		await state.written();
		await close(state);
		expect(readFileSync(join(dir, "journal.ndjson"), "utf8")).toBe("");
		expect(readFileSync(join(dir, "snapshot.ndjson"), "utf8")).toContain('"offsetMs":7');
	});

	test("a fold whose new journal cannot be written leaves the journal where it was, and every record loads", async () => {
		const dir = stateDir();
		// Every journal file after the start's (the folds' new ones) refuses writes, as a full disk does.
		const foldsFail = journalFiles((_file, index) => (index === 0 ? {} : { write: noSpace as FileHandle["write"] }));
		const state = await open(dir, { foldJournalAt: 1, wrapJournalFile: foldsFail });
		state.record({ merchant: { merchantId: "M-FOLD", publicKey: keys.merchantPublic } });
		await state.written();
		state.record(clock(9));
		await state.written();
		await close(state);
		expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
		expect(readFileSync(join(dir, "journal.ndjson"), "utf8")).toContain('"offsetMs":9');
		const again = await open(dir);
		expect([...again.loaded.merchants.keys()]).toEqual(["M-FOLD"]);
		expect(again.loaded.clock).toEqual({ frozenAt: undefined, offsetMs: 9 });
	});

	test("past the fold size the snapshot gets the records and the journal only what came after", async () => {
		const dir = stateDir();
		const state = await open(dir, { foldJournalAt: 1 });
		state.record({ merchant: { merchantId: "M-FOLD", publicKey: keys.merchantPublic } });
		await state.written();
		state.record(clock(7));
		await state.written();
		await close(state);
		const snapshot = readFileSync(join(dir, "snapshot.ndjson"), "utf8");
		expect(snapshot).toContain("M-FOLD");
		expect(readFileSync(join(dir, "journal.ndjson"), "utf8").length).toBeLessThan(snapshot.length);
		const again = await open(dir);
		expect([...again.loaded.merchants.keys()]).toEqual(["M-FOLD"]);
		expect(again.loaded.clock).toEqual({ frozenAt: undefined, offsetMs: 7 });
	});
});

describe("the journal's writes", () => {
	test("where the system has O_DSYNC the journal is opened with it, and no fdatasync follows a group", async () => {
		let syncs = 0;
		const counting = journalFiles((file) => ({
			datasync: () => {
				syncs++;
				return file.datasync();
			},
		}));
		const state = await open(stateDir(), { wrapJournalFile: counting });
		const afterStart = syncs;
		state.record(clock(1));
		await state.written();
		state.record(clock(2));
		await state.written();
		expect(syncs - afterStart).toBe(constants.O_DSYNC === undefined ? 2 : 0);
	});

	test("a write that fails with no one listening rejects its waiters, and later records are written", async () => {
		let failNext = true;
		const failingOnce = journalFiles((file) => ({
			write: ((buffer: Buffer, offset: number) => {
				if (!failNext) return file.write(buffer, offset);
				failNext = false;
				return noSpace();
			}) as FileHandle["write"],
		}));
		const dir = stateDir();
		const state = await open(dir, { wrapJournalFile: failingOnce });
		state.record(clock(1));
		await expect(state.written()).rejects.toThrow("no space left on device");
		state.record(clock(2));
		await state.written();
		await close(state);
		expect((await open(dir)).loaded.clock).toEqual({ frozenAt: undefined, offsetMs: 2 });
	});
});
