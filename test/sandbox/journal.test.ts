import { constants, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { Journal } from "../../src/sandbox/persistence/journal.js";

// The state directory's journal on a real file: lines written in groups, each group fdatasync'd once,
// and a failed write cut back so that no half line stays in the file.

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function journalFile(): Promise<{ path: string; file: FileHandle; syncs: () => number }> {
	const dir = mkdtempSync(join(tmpdir(), "journal-"));
	dirs.push(dir);
	const path = join(dir, "journal.ndjson");
	const file = await open(path, "a");
	let syncs = 0;
	const datasync = file.datasync.bind(file);
	file.datasync = () => {
		syncs++;
		return datasync();
	};
	return { path, file, syncs: () => syncs };
}

describe("the journal", () => {
	test("lines appended while a group is being written go out together in the next one", async () => {
		const { path, file, syncs } = await journalFile();
		const journal = new Journal(file, 0);
		// 40 requests, each appending its line and waiting for it, arriving in 40 turns of the event loop.
		const answered = await Promise.all(
			Array.from({ length: 40 }, async (_, i) => {
				await new Promise((resolve) => setImmediate(resolve));
				journal.append(`{"line":${i}}\n`);
				await journal.written();
				return readFileSync(path, "utf8").includes(`{"line":${i}}\n`);
			}),
		);
		await journal.close();
		expect(answered.every(Boolean)).toBe(true);
		const lines = readFileSync(path, "utf8").trim().split("\n");
		expect(lines).toEqual(Array.from({ length: 40 }, (_, i) => `{"line":${i}}`));
		expect(syncs()).toBeGreaterThan(0);
		expect(syncs()).toBeLessThan(40);
	});

	test("a file opened with O_DSYNC: its writes are synced, so no fdatasync follows them", async () => {
		const { O_APPEND, O_CREAT, O_WRONLY, O_DSYNC } = constants;
		if (O_DSYNC === undefined) return;
		const dir = mkdtempSync(join(tmpdir(), "journal-"));
		dirs.push(dir);
		const path = join(dir, "journal.ndjson");
		const file = await open(path, O_APPEND | O_CREAT | O_WRONLY | O_DSYNC);
		let syncs = 0;
		file.datasync = async () => {
			syncs++;
		};
		const journal = new Journal(file, 0, { syncedWrites: true });
		journal.append("one\n");
		await journal.written();
		expect(readFileSync(path, "utf8")).toBe("one\n");
		await journal.close();
		expect(syncs).toBe(0);
	});

	test("written() resolves at once when nothing is waiting, and after close() everything is on disk", async () => {
		const { path, file } = await journalFile();
		const journal = new Journal(file, 0);
		await journal.written();
		journal.append("a\n");
		journal.append("b\n");
		await journal.close();
		expect(readFileSync(path, "utf8")).toBe("a\nb\n");
	});

	test("a write failing half-way rejects its waiters, leaves no half line, and its lines are never written", async () => {
		const { path, file } = await journalFile();
		const write = file.write.bind(file) as (buffer: Buffer, offset: number) => Promise<{ bytesWritten: number }>;
		let failures = 1;
		(file as unknown as { write: typeof write }).write = async (buffer, offset) => {
			if (failures-- > 0) {
				await write(buffer.subarray(0, 5), 0);
				throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
			}
			return write(buffer, offset);
		};
		const lost: unknown[] = [];
		const journal = new Journal(file, 0, { listener: { written: () => {}, lost: (error) => lost.push(error) } });
		const before = journal.mark();
		journal.append('{"first":"lost"}\n');
		await expect(journal.written()).rejects.toThrow("no space left on device");
		expect(lost).toHaveLength(1);
		expect(readFileSync(path, "utf8")).toBe("");
		journal.append('{"second":"kept"}\n');
		// A view taken before the loss saw the lost line; one taken after it did not.
		const after = journal.mark();
		await expect(journal.written(before)).rejects.toThrow("no space left on device");
		await journal.written(after);
		await journal.close();
		expect(readFileSync(path, "utf8")).toBe('{"second":"kept"}\n');
	});
});
