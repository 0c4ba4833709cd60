import { ConfigurationError } from "../../errors/configuration-error.js";

/**
 * The sandbox's notion of "now". Session expiry, pending settlements and every
 * timestamp the sandbox writes read this clock, so a test can jump a day ahead
 * without waiting. By default it follows real time; `advance` and `set` move it.
 */
export interface SandboxClock {
	/** The sandbox's current time. */
	now(): Date;
	/** Moves the clock forward by `ms` milliseconds and runs whatever became due (expiries, pending settlements). */
	advance(ms: number): void;
	/** Sets the clock to `time` (it may not go backwards) and runs whatever became due. */
	set(time: Date | string | number): void;
}

/** A task that runs once the clock reaches `at` (epoch milliseconds). */
interface Scheduled {
	at: number;
	run: () => void;
	timer: ReturnType<typeof setTimeout> | undefined;
}

/** Where a clock stands: frozen at a time, or real time moved ahead by an offset. What a saved state keeps. */
export interface ClockReading {
	/** Epoch milliseconds the clock stands still at, when frozen. */
	frozenAt: number | undefined;
	/** Milliseconds a real-time clock was moved ahead by `advance`/`set`. */
	offsetMs: number;
}

/**
 * The clock as the books read it and schedule on it. One set of books' tasks can be called off
 * together (`close`), when the books are replaced by what is on disk.
 */
export interface BooksClock extends Pick<ControllableClock, "now" | "nowMs" | "frozen" | "schedule"> {
	/** Calls off every task scheduled through this view; later ones are ignored. */
	close(): void;
}

/** The clock with the scheduler the core uses; the package does not export it. */
export class ControllableClock implements SandboxClock {
	#frozenAt: number | undefined;
	#offset: number;
	#tasks = new Set<Scheduled>();
	#closed = false;
	#onMove: (() => void) | undefined;

	/**
	 * @param frozenAt when given (epoch ms), the clock stands still at this time and only moves with `advance`/`set`.
	 * @param offsetMs how far ahead of real time a clock that is not frozen starts (a resumed clock).
	 */
	constructor(frozenAt: number | undefined, offsetMs = 0) {
		this.#frozenAt = frozenAt;
		this.#offset = offsetMs;
	}

	/** A view of this clock whose tasks can be called off together: what one set of books schedules on. */
	scoped(): BooksClock {
		const cancels = new Set<() => void>();
		let closed = false;
		const clock = this;
		return {
			now: () => this.now(),
			nowMs: () => this.nowMs(),
			get frozen() {
				return clock.frozen;
			},
			schedule: (at, run) => {
				if (closed) return () => {};
				let done = false;
				let cancel = () => {};
				cancel = this.schedule(at, () => {
					done = true;
					cancels.delete(cancel);
					run();
				});
				// A task already due ran inside schedule: nothing is left to call off.
				if (!done) cancels.add(cancel);
				return () => {
					cancels.delete(cancel);
					cancel();
				};
			},
			close: () => {
				closed = true;
				for (const cancel of cancels) cancel();
				cancels.clear();
			},
		};
	}

	/**
	 * Puts the clock back where a saved reading says (it may go backwards: the move after it was never
	 * saved). Tasks already due run; nothing is reported to `onMove`.
	 */
	resume(reading: ClockReading): void {
		this.#frozenAt = reading.frozenAt;
		this.#offset = reading.offsetMs;
		this.#moved();
	}

	/** Where the clock stands now, to resume it later. */
	reading(): ClockReading {
		return { frozenAt: this.#frozenAt, offsetMs: this.#offset };
	}

	/** Calls `listener` after every move made by `advance` or `set`, once the tasks that became due have run. */
	onMove(listener: () => void): void {
		this.#onMove = listener;
	}

	/** True when the clock stands still and moves only with `advance`/`set`. */
	get frozen(): boolean {
		return this.#frozenAt !== undefined;
	}

	nowMs(): number {
		return this.#frozenAt ?? Date.now() + this.#offset;
	}

	now(): Date {
		return new Date(this.nowMs());
	}

	advance(ms: number): void {
		if (!Number.isFinite(ms) || ms < 0)
			throw misuse("advance(ms)", "ms", "must be a finite number of milliseconds, 0 or more");
		if (this.#frozenAt !== undefined) this.#frozenAt += ms;
		else this.#offset += ms;
		this.#moved();
		this.#onMove?.();
	}

	set(time: Date | string | number): void {
		const target = epochOf(time);
		if (target === undefined)
			throw misuse("set(time)", "time", "must be a valid date, ISO 8601 string or epoch milliseconds");
		const delta = target - this.nowMs();
		if (delta < 0) throw misuse("set(time)", "time", "must not be before now: the sandbox clock cannot go backwards");
		this.advance(delta);
	}

	/**
	 * Runs `run` once the clock reaches `at`: immediately on a move past it, or by
	 * a real timer when the clock follows real time. Returns a function that cancels it.
	 */
	schedule(at: number, run: () => void): () => void {
		if (this.#closed) return () => {};
		const task: Scheduled = { at, run, timer: undefined };
		this.#tasks.add(task);
		this.#arm(task);
		return () => {
			if (this.#tasks.delete(task) && task.timer) clearTimeout(task.timer);
		};
	}

	/** Stops every pending task and timer. */
	close(): void {
		this.#closed = true;
		for (const task of this.#tasks) if (task.timer) clearTimeout(task.timer);
		this.#tasks.clear();
	}

	#arm(task: Scheduled): void {
		if (task.timer) clearTimeout(task.timer);
		task.timer = undefined;
		const wait = task.at - this.nowMs();
		if (wait <= 0) {
			this.#fire(task);
			return;
		}
		// A frozen clock only moves by hand; a real-time one also moves by itself.
		if (this.#frozenAt === undefined && wait < 2_147_483_647) {
			task.timer = setTimeout(() => this.#fire(task), wait);
			task.timer.unref?.();
		}
	}

	#fire(task: Scheduled): void {
		if (!this.#tasks.delete(task)) return;
		if (task.timer) clearTimeout(task.timer);
		task.run();
	}

	#moved(): void {
		// Due tasks run in time order; the rest get timers for their now shorter wait.
		for (const task of [...this.#tasks].sort((a, b) => a.at - b.at)) {
			if (task.at <= this.nowMs()) this.#fire(task);
			else this.#arm(task);
		}
	}
}

function misuse(call: string, field: string, message: string): ConfigurationError {
	return new ConfigurationError([{ field, message }], `argument to clock.${call}`);
}

/** A time option as epoch milliseconds, or undefined when it is no valid time. */
export function epochOf(time: Date | string | number): number | undefined {
	const ms = time instanceof Date ? time.getTime() : typeof time === "number" ? time : Date.parse(time);
	return Number.isFinite(ms) ? ms : undefined;
}
