// How one event is run once claimed, for the IPN handler and the reconciler alike: claim it in the
// store, run the callback within its time limit, then confirm or release the claim, every store call
// within its own time limit. Each run ends in one EventOutcome value; what happens after the caller
// stopped waiting ends in another, handed to `onLate`.
import { LeaseExpiredError } from "../../errors/lease-expired-error.js";
import { NotificationStoreError } from "../../errors/notification-store-error.js";
import { isThenable } from "../../internal/thenable.js";
import { describeFailure } from "./failed-event-record.js";
import { type FailedEventStore, keepsFailedEvents, type NotificationStore } from "./store.js";

/** How long a claim protects an event being processed, when the handler or reconciler is not told. */
export const DEFAULT_LEASE_MS = 60_000;

/**
 * How long a store call (claim, confirm, release) may take when not told. A healthy Redis or PostgreSQL
 * answers in milliseconds; 2 s for the claim, the callback's 25 s and 2 s for the confirm stay inside the
 * gateway's 30-second acknowledgement deadline.
 */
export const DEFAULT_STORE_TIMEOUT_MS = 2_000;

/** Starts a timer; returns the function that cancels it. */
export type StartTimer = (onExpiry: () => void, delayMs: number) => () => void;

/** A real timer, unref'ed where the runtime can: an event still waiting should not keep a finished process alive. */
export function realTimer(onExpiry: () => void, delayMs: number): () => void {
	const timer = setTimeout(onExpiry, delayMs);
	(timer as { unref?: () => void }).unref?.();
	return () => clearTimeout(timer);
}

/**
 * How a run of one event ended: the one value the handler turns into its response and the reconciler
 * into its report.
 * - `processed`: the callback resolved and the event is marked done (`problem`: the confirm failed or
 *   came after the lease had ended; the event counts as processed all the same);
 * - `duplicate`: the store knew the event as processed: nothing ran;
 * - `held`: another worker holds the event's claim: nothing ran;
 * - `refused`: the delivery was refused before any event existed (a bad signature, a malformed body);
 * - `store_unavailable`: the store failed, gave an answer outside its contract, or did not answer in
 *   time: nothing ran;
 * - `callback_failed`: the callback threw; its claim was released (`problem`: the release or the
 *   failure's record failed);
 * - `timed_out`: the callback did not settle in time; its signal was aborted (`problem`: the failure's
 *   record failed).
 *
 * A failed or timed-out run of an event whose message was given is recorded in a store that keeps failed
 * events: `attempts` is then the count of failed runs across every process, this one included (absent
 * when nothing was recorded: the store keeps no failed events, its record failed, or the event was
 * processed meanwhile).
 */
export type EventOutcome =
	| { readonly kind: "processed"; readonly eventId: string; readonly problem?: unknown }
	| { readonly kind: "duplicate"; readonly eventId: string }
	| { readonly kind: "held"; readonly eventId: string }
	| { readonly kind: "refused"; readonly eventId: string | undefined; readonly error: unknown }
	| { readonly kind: "store_unavailable"; readonly eventId: string; readonly error: unknown }
	| ({ readonly kind: "callback_failed" } & FailedRun)
	| ({ readonly kind: "timed_out" } & FailedRun);

/** What a failed or timed-out run tells. */
interface FailedRun {
	readonly eventId: string;
	readonly error: unknown;
	readonly problem?: unknown;
	readonly attempts?: number;
}

/** What a run can end in: every outcome but a refusal, which comes before any event. */
export type RunOutcome = Exclude<EventOutcome, { kind: "refused" }>;

/** A step of a run: the store's claim, the callback, then the store's confirm (done) or release (failed). */
export type RunStep = "claim" | "callback" | "confirm" | "release";

/**
 * Told as each step of a run starts (telemetry times them); returns the function told how the step ended:
 * with the error when it failed (a callback that did not settle in time ends with its timeout), with the
 * store's answer for a claim.
 */
export type StepWatcher = (step: RunStep) => (ended: { error?: unknown; answer?: unknown }) => void;

let tokenPrefix: string | undefined;
let tokenCounter = 0;

/**
 * A claim token: unique across processes (a random prefix per process) and within
 * one (a counter), so a store can tell one claim from another. Tokens guard against a
 * mix-up, not an attacker (they never leave the merchant's side), and cost a string
 * concatenation per claim.
 */
export function newClaimToken(): string {
	if (tokenPrefix === undefined) {
		const bytes = globalThis.crypto.getRandomValues(new Uint8Array(12));
		tokenPrefix = `${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}.`;
	}
	tokenCounter++;
	return tokenPrefix + tokenCounter.toString(36);
}

/** The store's name for messages: its class, when it has one. */
function storeName(store: NotificationStore): string {
	const name = (store as { constructor?: { name?: unknown } }).constructor?.name;
	return typeof name === "string" && name !== "" && name !== "Object" ? `The store ${name}` : "The notification store";
}

/** A store's answer as a message shows it: a string quoted and cut short, an object by its kind. */
function describeAnswer(answer: unknown): string {
	if (typeof answer === "string") return JSON.stringify(answer.slice(0, 40));
	if (typeof answer === "object" && answer !== null) return "an object";
	if (typeof answer === "function") return "a function";
	return String(answer);
}

/** What every run of a handler's or reconciler's events shares: the store, its name, the time limits and the timer. */
export interface EventRunner {
	readonly store: NotificationStore;
	/** "The store RedisStore", "The notification store". */
	readonly name: string;
	readonly leaseMs: number;
	readonly storeTimeoutMs: number;
	readonly startTimer: StartTimer;
	/** How long a run waits for the callback: `callbackTimeoutMs`, at most the lease. */
	readonly waitMs: number;
	/** The store, when it keeps failed events (a failed run is then recorded). */
	readonly failures: FailedEventStore | undefined;
}

/** Makes what runs claimed events with the store and the limits (already checked). */
export function createEventRunner(
	options: Pick<EventRunner, "store" | "leaseMs" | "storeTimeoutMs" | "startTimer"> & { callbackTimeoutMs: number },
): EventRunner {
	const { store, leaseMs, callbackTimeoutMs, storeTimeoutMs, startTimer } = options;
	return {
		store,
		name: storeName(store),
		storeTimeoutMs,
		startTimer,
		leaseMs,
		waitMs: Math.min(callbackTimeoutMs, leaseMs),
		failures: keepsFailedEvents(store) ? store : undefined,
	};
}

/** A store call's failure, named (a thrown nothing still names what failed). */
function storeFailure(runner: EventRunner, error: unknown, step: string, eventId: string): unknown {
	return error ?? new NotificationStoreError(`${runner.name}'s ${step} of ${eventId} failed.`);
}

/**
 * Calls the store within `storeTimeoutMs`: a synchronous answer (the memory store's) is returned as it is,
 * with no timer; a promise is raced against the timer, and an answer that comes after it is handed to `late`.
 */
export function bounded<T>(
	runner: EventRunner,
	step: string,
	eventId: string,
	call: () => T | PromiseLike<T>,
	late?: (value: T) => void,
): T | Promise<T> {
	const answer = call();
	if (!isThenable(answer)) return answer;
	const { name, storeTimeoutMs, startTimer } = runner;
	return new Promise<T>((resolve, reject) => {
		let waiting = true;
		const cancel = startTimer(() => {
			waiting = false;
			const message = `${name} did not answer the ${step} of ${eventId} within ${storeTimeoutMs} ms (storeTimeoutMs).`;
			reject(new NotificationStoreError(message));
		}, storeTimeoutMs);
		answer.then(
			(value) => {
				cancel();
				if (waiting) resolve(value);
				else late?.(value);
			},
			(error: unknown) => {
				cancel();
				if (waiting) reject(storeFailure(runner, error, step, eventId));
			},
		);
	});
}

/**
 * Runs `callback` for `eventId` once claimed; `callback` gets the signal that aborts when the run stops
 * waiting. `onLate` is told how the run ended after its caller stopped waiting: a callback that settled
 * after `timed_out` (`processed` or `callback_failed`), or a claim granted after its time limit that could
 * not be given back (`store_unavailable`). `message`, when given, makes the event's verified message for
 * the record of a failed run; it is called only then.
 */
export async function runEvent(
	runner: EventRunner,
	eventId: string,
	callback: (signal: AbortSignal) => unknown,
	onLate: (outcome: RunOutcome) => void,
	message?: () => string,
	watch?: StepWatcher,
): Promise<RunOutcome> {
	const { store, leaseMs, name } = runner;
	const token = newClaimToken();
	const claimed = watch?.("claim");
	let answer: unknown;
	try {
		answer = await bounded(
			runner,
			"claim",
			eventId,
			() => store.claim(eventId, leaseMs, token),
			releaseLateClaim(runner, eventId, token, onLate),
		);
	} catch (error) {
		const failure = storeFailure(runner, error, "claim", eventId);
		claimed?.({ error: failure });
		return { kind: "store_unavailable", eventId, error: failure };
	}
	claimed?.({ answer });
	if (answer === "processed") return { kind: "duplicate", eventId };
	if (answer === "in_progress") return { kind: "held", eventId };
	if (answer !== "claimed") {
		// Fail closed: a store outside the contract (a raw `SET NX` reply, say) must never run an event twice.
		const shown = describeAnswer(answer);
		const expected = 'one of "claimed", "processed" or "in_progress"';
		const text = `${name}'s claim of ${eventId} answered ${shown}, not ${expected}; nothing was run.`;
		return { kind: "store_unavailable", eventId, error: new NotificationStoreError(text) };
	}
	return runCallback(runner, eventId, token, callback, onLate, message, watch);
}

/** A claim granted after its time limit: nobody runs the event, so the claim is given back at once. */
function releaseLateClaim(runner: EventRunner, eventId: string, token: string, onLate: (outcome: RunOutcome) => void) {
	return (answer: unknown) => {
		if (answer !== "claimed") return;
		release(runner, eventId, token).then((problem) => {
			if (problem !== undefined) onLate({ kind: "store_unavailable", eventId, error: problem });
		});
	};
}

/** Calls the claimed event's callback within `waitMs`, then confirms the claim or records the failure. */
function runCallback(
	runner: EventRunner,
	eventId: string,
	token: string,
	callback: (signal: AbortSignal) => unknown,
	onLate: (outcome: RunOutcome) => void,
	message: (() => string) | undefined,
	watch: StepWatcher | undefined,
): RunOutcome | Promise<RunOutcome> {
	const { leaseMs, waitMs, startTimer } = runner;
	const controller = new AbortController();
	const ended = watch?.("callback");
	let result: unknown;
	try {
		result = callback(controller.signal);
	} catch (error) {
		ended?.({ error });
		return failed(runner, eventId, token, error, message, watch);
	}
	if (!isThenable(result)) {
		ended?.({});
		return succeeded(runner, eventId, token, watch);
	}
	return new Promise<RunOutcome>((resolve) => {
		let waiting = true;
		const cancel = startTimer(() => {
			waiting = false;
			const limit = waitMs === leaseMs ? `its ${leaseMs} ms lease` : `${waitMs} ms`;
			const text = `The callback did not settle within ${limit}; the event will be run again on a later delivery.`;
			const reason = new DOMException(text, "TimeoutError");
			controller.abort(reason);
			ended?.({ error: reason });
			// The claim stays: the callback may still be running. A late success clears the record.
			resolve(
				record(runner, eventId, token, reason, message, false).then((recorded) => ({
					kind: "timed_out",
					eventId,
					error: reason,
					...recorded,
				})),
			);
		}, waitMs);
		result.then(
			() => {
				cancel();
				// Late or not, the work is done: the event is confirmed either way.
				if (waiting) {
					ended?.({});
					resolve(succeeded(runner, eventId, token, watch));
				} else succeeded(runner, eventId, token).then(onLate);
			},
			(error: unknown) => {
				cancel();
				if (waiting) {
					ended?.({ error });
					resolve(failed(runner, eventId, token, error, message, watch));
				}
				// Too late to release: the claim may be another delivery's by now. It lapses by itself. The
				// failure was recorded when the run timed out.
				else onLate({ kind: "callback_failed", eventId, error });
			},
		);
	});
}

/** Marks the event done; never throws, as the work is done and must be acknowledged. */
async function succeeded(
	runner: EventRunner,
	eventId: string,
	token: string,
	watch?: StepWatcher,
): Promise<RunOutcome> {
	const ended = watch?.("confirm");
	let problem: unknown;
	try {
		const confirmed: unknown = await bounded(runner, "confirm", eventId, () => runner.store.confirm(eventId, token));
		if (confirmed === "lease_lost") problem = new LeaseExpiredError(eventId, runner.leaseMs);
	} catch (error) {
		problem = storeFailure(runner, error, "confirm", eventId);
	}
	ended?.(problem === undefined ? {} : { error: problem });
	return problem === undefined ? { kind: "processed", eventId } : { kind: "processed", eventId, problem };
}

/** Records the failure and forgets the claim, so the next delivery runs the callback again. */
async function failed(
	runner: EventRunner,
	eventId: string,
	token: string,
	error: unknown,
	message: (() => string) | undefined,
	watch?: StepWatcher,
): Promise<RunOutcome> {
	// One step for telemetry, whether the store releases the claim with the record or on its own.
	const ended = watch?.("release");
	const recorded = await record(runner, eventId, token, error, message, true);
	// Recorded means released with it; otherwise the claim is released on its own, as without a record.
	const released = recorded.attempts === undefined ? await release(runner, eventId, token) : undefined;
	const problem = recorded.problem ?? released;
	ended?.(problem === undefined ? {} : { error: problem });
	return { kind: "callback_failed", eventId, error, ...recorded, ...(problem === undefined ? {} : { problem }) };
}

/**
 * Records the failed run (releasing the claim in the same step when `releasing`); never throws. The
 * attempts counted, or the store's error; neither when there is nothing to record.
 */
async function record(
	runner: EventRunner,
	eventId: string,
	token: string,
	error: unknown,
	message: (() => string) | undefined,
	releasing: boolean,
): Promise<{ attempts?: number; problem?: unknown }> {
	const { failures, name } = runner;
	if (failures === undefined || message === undefined) return {};
	try {
		const failure = { message: message(), error: describeFailure(error), release: releasing };
		const attempts: unknown = await bounded(runner, "failure record", eventId, () =>
			failures.recordFailure(eventId, token, failure),
		);
		if (typeof attempts !== "number" || !Number.isSafeInteger(attempts) || attempts < 0) {
			const shown = describeAnswer(attempts);
			return { problem: new NotificationStoreError(`${name}'s failure record of ${eventId} answered ${shown}.`) };
		}
		return attempts === 0 ? {} : { attempts };
	} catch (problem) {
		return { problem: storeFailure(runner, problem, "failure record", eventId) };
	}
}

/** Never throws: the store's error when the release failed, else undefined (the lease then ends by itself). */
async function release(runner: EventRunner, eventId: string, token: string): Promise<unknown> {
	try {
		await bounded(runner, "release", eventId, () => runner.store.release(eventId, token));
		return undefined;
	} catch (error) {
		return storeFailure(runner, error, "release", eventId);
	}
}
