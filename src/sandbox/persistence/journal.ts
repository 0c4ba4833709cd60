import type { FileHandle } from "node:fs/promises";

/**
 * An append-only file of lines, made durable in groups: lines appended while a write and its
 * fdatasync are under way go out together in the next one, so concurrent requests share the cost
 * of a sync instead of queueing behind one sync each.
 */
export class Journal {
	readonly #file: FileHandle;
	/** Bytes known to be on disk: a failed write is cut back to here, so no half line stays behind. */
	#size: number;
	/** Lines appended since the last group went out, and the promise of the group that will carry them. */
	#pending: string[] = [];
	#next: Group | undefined;
	/** The group being written now. */
	#current: Promise<void> | undefined;
	#flushing: Promise<void> | undefined;
	#closed = false;

	readonly #syncedWrites: boolean;

	/**
	 * @param size the file's length now (it is opened for appending).
	 * @param options.syncedWrites the file was opened with O_DSYNC: a write returns once it is on disk,
	 * so no fdatasync follows it.
	 */
	constructor(file: FileHandle, size: number, options: { syncedWrites?: boolean } = {}) {
		this.#file = file;
		this.#size = size;
		this.#syncedWrites = options.syncedWrites ?? false;
	}

	/** Queues a line (newline included); it is written with the next group. */
	append(line: string): void {
		if (this.#closed) return;
		this.#pending.push(line);
		this.#next ??= group();
		this.#flushing ??= this.#flush();
	}

	/** Resolves once every line appended so far is on disk; rejects when writing them failed. */
	written(): Promise<void> {
		return this.#next?.promise ?? this.#current ?? Promise.resolve();
	}

	/**
	 * Writes what is queued (a group that failed gets one more try), then closes the file.
	 * Nothing appended later is kept.
	 */
	async close(): Promise<void> {
		if (this.#pending.length > 0) {
			this.#next ??= group();
			this.#flushing ??= this.#flush();
		}
		this.#closed = true;
		await this.#flushing;
		await this.#file.close();
	}

	async #flush(): Promise<void> {
		// Lines appended in the same turn of the event loop join this group.
		await Promise.resolve();
		while (this.#next) {
			const lines = this.#pending;
			const done = this.#next;
			this.#pending = [];
			this.#next = undefined;
			this.#current = done.promise;
			try {
				const bytes = Buffer.from(lines.join(""), "utf8");
				for (let offset = 0; offset < bytes.length; ) offset += (await this.#file.write(bytes, offset)).bytesWritten;
				if (!this.#syncedWrites) await this.#file.datasync();
				this.#size += bytes.length;
				done.resolve();
			} catch (error) {
				await this.#file.truncate(this.#size).catch(() => {});
				// Kept for the next group (whoever waited on this one hears of the failure now), so the
				// file catches up with the state once writing works again.
				this.#pending.unshift(...lines);
				done.reject(error);
			}
		}
		this.#current = undefined;
		this.#flushing = undefined;
	}
}

interface Group {
	promise: Promise<void>;
	resolve: () => void;
	reject: (error: unknown) => void;
}

function group(): Group {
	const { promise, resolve, reject } = Promise.withResolvers<void>();
	// A group nobody waits for may fail without an unhandled rejection; whoever waits still sees it.
	promise.catch(() => {});
	return { promise, resolve, reject };
}
