import { constants, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
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

/**
 * A journal file in memory: each write takes at most `chunk` bytes (a short write, as a pipe or a signal can
 * make), and a test can make the next writes fail as a full disk does, after writing part of what they got.
 */
class MemoryFile {
	bytes = Buffer.alloc(0);
	chunk = Number.POSITIVE_INFINITY;
	failing = 0;
	writeCalls = 0;
	closed = false;

	get text(): string {
		return this.bytes.toString("utf8");
	}

	write = async (buffer: Buffer, offset = 0): Promise<{ bytesWritten: number }> => {
		this.writeCalls++;
		if (this.closed) throw Object.assign(new Error("file closed"), { code: "EBADF" });
		const taken = buffer.subarray(offset, offset + Math.min(this.chunk, buffer.length - offset));
		if (this.failing > 0) {
			this.failing--;
			this.bytes = Buffer.concat([this.bytes, taken.subarray(0, 3)]);
			throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
		}
		this.bytes = Buffer.concat([this.bytes, taken]);
		return { bytesWritten: taken.length };
	};
	datasync = async (): Promise<void> => {};
	truncate = async (size = 0): Promise<void> => {
		this.bytes = this.bytes.subarray(0, size);
	};
	close = async (): Promise<void> => {
		this.closed = true;
	};

	get handle(): FileHandle {
		return this as unknown as FileHandle;
	}
}

/** Lets the event loop run what it has queued (promises and I/O callbacks), a fixed number of turns. */
async function settle(): Promise<void> {
	for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("the journal's writes (a file in memory)", () => {
	test("a short write is continued until the whole group is in the file", async () => {
		const file = new MemoryFile();
		file.chunk = 3;
		const journal = new Journal(file.handle, 0);
		journal.append('{"é":"ünïcode line"}\n');
		journal.append("second\n");
		await journal.written();
		expect(file.text).toBe('{"é":"ünïcode line"}\nsecond\n');
		expect(journal.size).toBe(Buffer.byteLength('{"é":"ünïcode line"}\nsecond\n'));
		await journal.close();
	});

	test("a failed write is cut back to the end of the last group written, which stays whole", async () => {
		const file = new MemoryFile();
		const journal = new Journal(file.handle, 0);
		journal.append("kept line\n");
		await journal.written();
		file.failing = 1;
		journal.append("lost line\n");
		await expect(journal.written()).rejects.toThrow("no space left on device");
		expect(file.text).toBe("kept line\n");
		expect(journal.size).toBe(10);
		await journal.close();
	});

	test("a journal opened on a file that already holds lines appends after them and cuts back to them", async () => {
		const file = new MemoryFile();
		file.bytes = Buffer.from("earlier\n");
		const journal = new Journal(file.handle, 8);
		file.failing = 1;
		journal.append("lost\n");
		await expect(journal.written()).rejects.toThrow("no space left on device");
		expect(file.text).toBe("earlier\n");
		journal.append("next\n");
		await journal.written();
		expect(file.text).toBe("earlier\nnext\n");
		await journal.close();
	});

	test("lines queued behind a failed group are dropped with it, and the listener hears of the loss once", async () => {
		const file = new MemoryFile();
		const written: string[][] = [];
		const lost: unknown[] = [];
		const journal = new Journal(file.handle, 0, {
			listener: { written: (lines) => written.push(lines.map((line) => line.key)), lost: (error) => lost.push(error) },
		});
		let releaseWrite: () => void = () => {};
		const write = file.write;
		file.write = async (buffer, offset) => {
			await new Promise<void>((resolve) => {
				releaseWrite = resolve;
			});
			return write(buffer, offset);
		};
		journal.append({ key: "a", text: "a line\n" });
		const waitingOnA = journal.written();
		await settle();
		// "a" is being written: "b" is queued behind it, then the write of "a" fails.
		journal.append({ key: "b", text: "b line\n" });
		const waitingOnB = journal.written();
		file.failing = 1;
		file.write = write;
		releaseWrite();
		await expect(waitingOnA).rejects.toThrow("no space left on device");
		await expect(waitingOnB).rejects.toThrow("no space left on device");
		expect(lost).toHaveLength(1);
		journal.append({ key: "c", text: "c line\n" });
		await journal.written();
		expect(file.text).toBe("c line\n");
		expect(written).toEqual([["c"]]);
		await journal.close();
	});

	test("after a failed write the next group waits 25 ms, doubling with each failure in a row up to a second", async () => {
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
		try {
			const file = new MemoryFile();
			const journal = new Journal(file.handle, 0);
			const waits: number[] = [];
			for (let failure = 1; failure <= 8; failure++) {
				file.failing = 1;
				const calls = file.writeCalls;
				journal.append(`line ${failure}\n`);
				const outcome = journal.written().catch(() => "failed");
				// Retry waits: 25, 50, 100, ... capped at 1000 ms. Find the first moment the write goes out.
				let waited = 0;
				while (file.writeCalls === calls) {
					await vi.advanceTimersByTimeAsync(1);
					waited++;
					if (waited > 2000) throw new Error("the write never went out");
				}
				waits.push(waited);
				expect(await outcome).toBe("failed");
			}
			// The first write goes at once (within the 1 ms step); each one after a failure waits.
			expect(waits).toEqual([1, 25, 50, 100, 200, 400, 800, 1000]);
			// A write that succeeds ends the run of failures: the one after it goes out at once.
			journal.append("written\n");
			await vi.advanceTimersByTimeAsync(1000);
			await journal.written();
			const calls = file.writeCalls;
			journal.append("next\n");
			await vi.advanceTimersByTimeAsync(0);
			await settle();
			expect(file.writeCalls).toBe(calls + 1);
			expect(file.text).toBe("written\nnext\n");
			await journal.close();
		} finally {
			vi.useRealTimers();
		}
	});

	test("a line appended after close() is not written, and no one hears of a loss", async () => {
		const file = new MemoryFile();
		const lost: unknown[] = [];
		const journal = new Journal(file.handle, 0, { listener: { written: () => {}, lost: (error) => lost.push(error) } });
		journal.append("before\n");
		await journal.close();
		journal.append("after\n");
		await settle();
		expect(file.writeCalls).toBe(1);
		expect(lost).toEqual([]);
		expect(file.text).toBe("before\n");
	});
});

describe("moving the journal to a new file (a fold)", () => {
	test("a move is refused unless the journal keeps its groups (retain), and after close", async () => {
		const journal = new Journal(new MemoryFile().handle, 0);
		await expect(journal.moveTo(async () => new MemoryFile().handle)).rejects.toThrow("the journal is not folding");
		journal.retain();
		journal.forget();
		await expect(journal.moveTo(async () => new MemoryFile().handle)).rejects.toThrow("the journal is not folding");
		journal.retain();
		await journal.close();
		await expect(journal.moveTo(async () => new MemoryFile().handle)).rejects.toThrow("the journal is not folding");
	});

	test("the new file gets the groups written since retain(); later lines go there, the old file is closed", async () => {
		const old = new MemoryFile();
		const journal = new Journal(old.handle, 0);
		journal.append("before the fold\n");
		await journal.written();
		journal.retain();
		journal.append("since é\n");
		await journal.written();
		journal.append("and this\n");
		await journal.written();
		const next = new MemoryFile();
		let tail: string | undefined;
		await journal.moveTo(async (text) => {
			tail = text;
			next.bytes = Buffer.from(text);
			return next.handle;
		});
		expect(tail).toBe("since é\nand this\n");
		expect(old.closed).toBe(true);
		expect(journal.size).toBe(Buffer.byteLength("since é\nand this\n"));
		// A failure in the new file is cut back to the tail's end.
		next.failing = 1;
		journal.append("lost\n");
		await expect(journal.written()).rejects.toThrow("no space left on device");
		journal.append("after\n");
		await journal.written();
		expect(next.text).toBe("since é\nand this\nafter\n");
		expect(old.text).toBe("before the fold\nsince é\nand this\n");
		// The move ended the retaining: a second move needs a new retain().
		await expect(journal.moveTo(async () => new MemoryFile().handle)).rejects.toThrow("the journal is not folding");
		await journal.close();
		expect(next.closed).toBe(true);
	});

	test("a move whose new file cannot be prepared leaves the journal writing where it was", async () => {
		const old = new MemoryFile();
		const journal = new Journal(old.handle, 0);
		journal.retain();
		journal.append("one\n");
		await journal.written();
		await expect(
			journal.moveTo(async () => {
				throw new Error("disk full while preparing");
			}),
		).rejects.toThrow("disk full while preparing");
		journal.append("two\n");
		await journal.written();
		expect(old.text).toBe("one\ntwo\n");
		expect(old.closed).toBe(false);
		await journal.close();
	});

	test("a move waits for the group being written, and lines appended meanwhile go to the new file", async () => {
		const old = new MemoryFile();
		const journal = new Journal(old.handle, 0);
		journal.retain();
		let releaseWrite: () => void = () => {};
		const write = old.write;
		old.write = async (buffer, offset) => {
			await new Promise<void>((resolve) => {
				releaseWrite = resolve;
			});
			return write(buffer, offset);
		};
		journal.append("in flight\n");
		await settle();
		const next = new MemoryFile();
		const moved = journal.moveTo(async (tail) => {
			next.bytes = Buffer.from(tail);
			return next.handle;
		});
		journal.append("during the move\n");
		releaseWrite();
		await moved;
		await journal.written();
		expect(next.text).toBe("in flight\nduring the move\n");
		expect(old.text).toBe("in flight\n");
		await journal.close();
	});

	test("closing the journal during a move rejects the move", async () => {
		const journal = new Journal(new MemoryFile().handle, 0);
		journal.retain();
		const moved = journal.moveTo(async () => new MemoryFile().handle);
		await journal.close();
		await expect(moved).rejects.toThrow("the journal closed");
	});
});
