import type { FileHandle } from "node:fs/promises";

/** One line of the journal (newline included) and the key of the record it saves. */
export interface JournalLine {
	key: string;
	text: string;
}

/** Where the journal stood when a caller looked at the books: `written(mark)` tells whether that view holds. */
export type JournalMark = number;

/** What the journal reports to its owner. */
export interface JournalListener {
	/** A group is on disk: its lines, in order. */
	written(lines: readonly JournalLine[]): void;
	/**
	 * A group could not be written: it and every line queued after it are dropped (none of them is on
	 * disk). Called before anyone waiting on those lines hears of it, so the owner can put its books
	 * back to what is on disk first.
	 */
	lost(error: unknown): void;
}

/** A move to a new file, waiting for the group being written to end. */
interface Move {
	prepare: (tail: string) => Promise<FileHandle>;
	done: PromiseWithResolvers<void>;
}

/** A caller of `written`, waiting for lines up to `upTo` to settle. */
type Waiter = { mark: JournalMark; upTo: number; resolve: () => void; reject: (error: unknown) => void };

/** Dropped ranges kept to answer `written(mark)`: a mark older than this many failures is not asked about. */
const LOST_RANGES_KEPT = 1000;

/** Lines appended after a failed write wait this long (doubling up to a second) before the next try. */
const RETRY_AFTER_FAILURE_MS = 25;
const MAX_RETRY_AFTER_FAILURE_MS = 1000;

/**
 * An append-only file of lines, made durable in groups: lines appended while a write and its
 * fdatasync are under way go out together in the next one, so concurrent requests share the cost
 * of a sync instead of queueing behind one sync each.
 *
 * Lines are numbered as they are appended. A group that fails is cut back from the file and dropped
 * together with every line queued after it (they describe changes made on top of it): nothing that
 * could not be written is retried later, so the file never gains a change its caller was told failed.
 */
export class Journal {
	#file: FileHandle;
	/** Bytes known to be in the file: a failed write is cut back to here, so no half line stays behind. */
	#size: number;
	/** Lines appended since the last group went out. */
	#pending: JournalLine[] = [];
	/** Lines appended so far (their numbers run from 1). */
	#appended = 0;
	/** Lines 1..settled are on disk or were dropped. */
	#settled = 0;
	/** Ranges (from, to] of line numbers dropped, with why. */
	readonly #lost: { from: number; to: number; error: unknown }[] = [];
	#waiters: Waiter[] = [];
	#flushing: Promise<void> | undefined;
	#failuresInARow = 0;
	#closed = false;
	/** While a fold runs: the text of every group written since it began. */
	#retained: string[] | undefined;
	#move: Move | undefined;

	readonly #syncedWrites: boolean;
	readonly #listener: JournalListener | undefined;

	/**
	 * @param size the file's length now (it is opened for appending).
	 * @param options.syncedWrites the file was opened with O_DSYNC: a write returns once it is on disk,
	 * so no fdatasync follows it.
	 */
	constructor(
		file: FileHandle,
		size: number,
		options: { syncedWrites?: boolean; listener?: JournalListener | undefined } = {},
	) {
		this.#file = file;
		this.#size = size;
		this.#syncedWrites = options.syncedWrites ?? false;
		this.#listener = options.listener;
	}

	/** Bytes in the file now. */
	get size(): number {
		return this.#size;
	}

	/** Queues a line (newline included); it is written with the next group. */
	append(line: string | JournalLine): void {
		if (this.#closed) return;
		this.#pending.push(typeof line === "string" ? { key: "", text: line } : line);
		this.#appended++;
		this.#flushing ??= this.#flush();
	}

	/**
	 * Where the journal stands: take it before reading the books, then `written(mark)` says whether
	 * what was read is on disk.
	 */
	mark(): JournalMark {
		return this.#settled;
	}

	/**
	 * Resolves once every line appended so far is on disk. Rejects when a line appended after `mark` and
	 * before this call was dropped: a view of the books taken at `mark` then showed a change that is not
	 * on disk (and is no longer in the books).
	 * @param mark from `mark()`; by default, now: only lines still waiting to be written count.
	 */
	written(mark: JournalMark = this.#settled): Promise<void> {
		const { promise, resolve, reject } = Promise.withResolvers<void>();
		const waiter = { mark, upTo: this.#appended, resolve, reject };
		if (!this.#answer(waiter)) this.#waiters.push(waiter);
		return promise;
	}

	/** Starts keeping the text of every group written from now on, for `moveTo`. */
	retain(): void {
		this.#retained = [];
	}

	/**
	 * Between two groups, moves the journal to a new file: `prepare` gets the lines written since
	 * `retain()` and returns the new file (already holding them, durably, under the journal's name).
	 * Appends wait meanwhile; a `prepare` that fails leaves the journal where it was.
	 */
	moveTo(prepare: (tail: string) => Promise<FileHandle>): Promise<void> {
		if (this.#closed || this.#retained === undefined) return Promise.reject(new Error("the journal is not folding"));
		const done = Promise.withResolvers<void>();
		this.#move = { prepare, done };
		this.#flushing ??= this.#flush();
		return done.promise;
	}

	/** Stops keeping groups for a move that will not come. */
	forget(): void {
		this.#retained = undefined;
	}

	/** Writes what is queued (once), then closes the file. Nothing appended later is kept. */
	async close(): Promise<void> {
		this.#closed = true;
		this.#move?.done.reject(new Error("the journal closed"));
		this.#move = undefined;
		await this.#flushing;
		await this.#file.close();
	}

	/** Settles a waiter whose lines are all on disk or dropped; false while some are not. */
	#answer(waiter: Waiter): boolean {
		if (this.#settled < waiter.upTo) return false;
		const lost = this.#lost.find((range) => range.to > waiter.mark && range.from < waiter.upTo);
		if (lost) waiter.reject(lost.error);
		else waiter.resolve();
		return true;
	}

	async #flush(): Promise<void> {
		// Lines appended in the same turn of the event loop join this group.
		await Promise.resolve();
		while (this.#pending.length > 0 || this.#move) {
			if (this.#failuresInARow > 0 && !this.#closed) {
				const wait = Math.min(MAX_RETRY_AFTER_FAILURE_MS, RETRY_AFTER_FAILURE_MS * 2 ** (this.#failuresInARow - 1));
				await new Promise((resolve) => setTimeout(resolve, wait).unref());
			}
			if (this.#move) await this.#moveNow(this.#move);
			else await this.#writeGroup();
		}
		this.#flushing = undefined;
	}

	async #writeGroup(): Promise<void> {
		const lines = this.#pending;
		this.#pending = [];
		const text = lines.map((line) => line.text).join("");
		try {
			const bytes = Buffer.from(text, "utf8");
			for (let offset = 0; offset < bytes.length; ) offset += (await this.#file.write(bytes, offset)).bytesWritten;
			if (!this.#syncedWrites) await this.#file.datasync();
			this.#size += bytes.length;
			this.#settled += lines.length;
			this.#failuresInARow = 0;
			this.#retained?.push(text);
			this.#listener?.written(lines);
		} catch (error) {
			await this.#file.truncate(this.#size).catch(() => {});
			// This group and whatever was queued behind it (changes made on top of it) are dropped.
			this.#lost.push({ from: this.#settled, to: this.#appended, error });
			if (this.#lost.length > LOST_RANGES_KEPT) this.#lost.shift();
			this.#settled = this.#appended;
			this.#pending = [];
			this.#failuresInARow++;
			this.#listener?.lost(error);
		}
		this.#waiters = this.#waiters.filter((waiter) => !this.#answer(waiter));
	}

	async #moveNow(move: Move): Promise<void> {
		this.#move = undefined;
		const tail = (this.#retained ?? []).join("");
		this.#retained = undefined;
		try {
			const file = await move.prepare(tail);
			const old = this.#file;
			this.#file = file;
			this.#size = Buffer.byteLength(tail, "utf8");
			await old.close().catch(() => {});
			move.done.resolve();
		} catch (error) {
			move.done.reject(error);
		}
	}
}
