import * as z from "zod/mini";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { duration, finiteNumber, integer, MAX_DURATION_MS, optionalFunction } from "../../internal/options.js";
import { parseJsonObject } from "../../internal/plain-object.js";
import { redactText } from "../../internal/redact.js";
import type { BooksClock } from "../books/clock.js";
import { savedDate } from "../books/records.js";

/** The gateway's IPN retry schedule (D7, evidence): 10 retries, 30 minutes after the start, then every 5 minutes. */
const GATEWAY_RETRY_SCHEDULE = { retries: 10, firstAfterStartMs: 30 * 60_000, everyMs: 5 * 60_000 } as const;

/** A delay in milliseconds, fractions allowed (it may be scaled), from 0 to the longest a timer honours. */
export const delayMs = () =>
	finiteNumber(0, MAX_DURATION_MS, `must be a number of milliseconds from 0 to ${MAX_DURATION_MS}`);

/** Every IPN delivery setting, with its rule and its documentation. */
function ipnOptionsShape() {
	return {
		/**
		 * Replaces the gateway's retry schedule with your own: the delay before each
		 * retry, counted from the end of the failed attempt, in milliseconds of
		 * sandbox-clock time before `timeScale`; one retry per entry.
		 * @default the gateway's retry schedule: 10 retries, the first 30 minutes after
		 * the transaction (or refund) started, then every 5 minutes
		 */
		retryDelaysMs: z.optional(z.array(delayMs(), { error: "must be an array of delays" })),
		/**
		 * Multiplies every retry delay. Retries are scheduled on the sandbox clock: a
		 * test passes 0.001 to run the gateway's 75 minutes in 4.5 seconds, or freezes
		 * the clock (`now`) and moves it with `sandbox.clock.advance`.
		 * @default 1
		 */
		timeScale: z._default(finiteNumber(0, Number.MAX_VALUE, "must be a finite number, 0 or more"), 1),
		/** How long the merchant has to respond with returnCode "100" (spec: 30 s). Not scaled. @default 30_000 */
		ackTimeoutMs: duration(30_000),
		/** Extra copies of every acknowledged notification, sent at once, to test idempotency. @default 0 */
		duplicates: integer(0, 10, 0),
		/** The fetch that delivers IPNs. @default globalThis.fetch at delivery time (so MSW can intercept it) */
		fetch: optionalFunction<typeof fetch>(),
	};
}
type IpnOptionsObject = z.ZodMiniObject<ReturnType<typeof ipnOptionsShape>>;
export const ipnOptionsObject = (): IpnOptionsObject => z.object(ipnOptionsShape());

/**
 * IPN delivery settings.
 * @interface
 */
export type SandboxIpnOptions = z.input<IpnOptionsObject>;

/** IPN delivery settings with their defaults applied. */
type IpnSettings = z.output<IpnOptionsObject>;

/** One attempt to deliver one notification, as `sandbox.deliveries()` lists it. */
export interface DeliveryAttempt {
	/** Identifies the notification; every retry and forced duplicate of it shares this id. */
	deliveryId: string;
	/** 1 for the first try, then 2, 3... across retries and duplicates. */
	attempt: number;
	/** The event identity, as the SDK's handler computes it: `transaction:{id}:{status}` or `refund:{id}:{status}`. */
	eventId: string;
	/** A transaction IPN or a refund IPN. */
	kind: "transaction" | "refund";
	/** The notificationUrl it was sent to. */
	url: string;
	/** A forced duplicate of a notification already acknowledged. */
	duplicate: boolean;
	/** When the attempt started, on the sandbox clock (ISO 8601). */
	startedAt: string;
	/** When it ended, on the sandbox clock (ISO 8601). */
	finishedAt: string;
	/** acknowledged: HTTP 2xx with returnCode "100"; anything else is retried. */
	outcome: "acknowledged" | "rejected" | "timeout" | "network_error";
	/** HTTP status of the merchant's response, when there was one. */
	httpStatus: number | undefined;
	/** returnCode of the merchant's response, when it had one. */
	returnCode: string | undefined;
	/** Why the attempt did not count as acknowledged. */
	detail: string | undefined;
	/** The start of the merchant's response body (at most 200 characters, redacted), when one came. */
	responseExcerpt: string | undefined;
	/** When the next retry is due on the sandbox clock, or undefined when none will follow. */
	nextAttemptAt: string | undefined;
}

const epochMs = z.number().check(z.refine(Number.isFinite));

/** A notification with where its delivery stands: what a saved state keeps of it, and reads back with this. */
export const deliverySchema = z.object({
	deliveryId: z.string(),
	kind: z.enum(["transaction", "refund"]),
	eventId: z.string(),
	url: z.string(),
	/** The signed body: fixed once, re-sent unchanged. */
	body: z.string(),
	/** When the transaction (or refund) started: the gateway's retry schedule counts from it (D7). */
	startedAt: savedDate,
	/** Attempts made so far, duplicates and resends included (each attempt's number). */
	attempts: z.int(),
	/** When the last retry was due (sandbox-clock epoch ms), for "then every 5 minutes". */
	lastDueAt: z.optional(epochMs),
	/** The merchant acknowledged it: later attempts are duplicates. */
	acknowledged: z.boolean(),
	/** The attempt of the schedule due next: 0 for the first try, then the retry's number. */
	nextRetry: z.int(),
	/**
	 * When that attempt is due (sandbox-clock epoch ms), a past time while it runs; undefined once the
	 * merchant acknowledged it or the schedule ran out.
	 */
	nextDueAt: z.optional(epochMs),
});

export type DeliveryState = z.output<typeof deliverySchema>;
/** A notification to deliver. */
export type Notification = Pick<DeliveryState, "kind" | "eventId" | "url" | "body" | "startedAt">;

interface Delivery extends DeliveryState {
	/** The retry waiting on the clock: when it is due (epoch ms) and how to call it off. */
	scheduled: { dueAt: number; cancel: () => void } | undefined;
	/** The attempts running now, each resolving with its record (undefined when the notifier closed meanwhile). */
	running: Set<Promise<DeliveryAttempt | undefined>>;
}

/** Why an attempt runs: the first try, a scheduled retry, a duplicate of an acknowledged one, or a resend now. */
type AttemptKind = "first" | "retry" | "duplicate" | "resend";

/** What a notifier reports: each attempt as it ends, and where a delivery stands whenever it changes. */
interface NotifierReports {
	attempt(attempt: DeliveryAttempt): void;
	delivery(delivery: DeliveryState): void;
}

/**
 * Delivers IPNs: POST, JSON, wait up to `ackTimeoutMs` for `{"returnCode":"100"}`
 * with a 2xx status, retry on the schedule otherwise. Retries are scheduled on
 * the sandbox clock, their delays multiplied by `timeScale`: a real-time clock
 * runs them on timers, a frozen one when a test moves it.
 */
export class Notifier {
	readonly #settings: IpnSettings;
	readonly #clock: BooksClock;
	readonly #report: NotifierReports;
	readonly #log: DeliveryAttempt[] = [];
	readonly #deliveries = new Map<string, Delivery>();
	#idleWaiters: (() => void)[] = [];
	#sequence = 0;
	#closed = false;
	/** Aborts the attempts in flight on close, so a merchant server that never responds cannot hold the process. */
	readonly #closing = new AbortController();

	constructor(settings: IpnSettings, clock: BooksClock, report: NotifierReports) {
		this.#settings = settings;
		this.#clock = clock;
		this.#report = report;
	}

	/**
	 * Queues a notification; the first attempt starts at once, or once `after` resolves (the change it
	 * reports is on disk: a merchant never hears of a change the sandbox could still lose). When `after`
	 * rejects the change was not saved, and no attempt is made.
	 */
	send(notification: Notification, after?: Promise<unknown>): string {
		const deliveryId = `dlv_${String(++this.#sequence).padStart(6, "0")}`;
		const delivery: Delivery = {
			...notification,
			deliveryId,
			attempts: 0,
			lastDueAt: undefined,
			acknowledged: false,
			nextRetry: 0,
			nextDueAt: this.#clock.nowMs(),
			scheduled: undefined,
			running: new Set(),
		};
		this.#deliveries.set(deliveryId, delivery);
		this.#saved(delivery);
		this.#run(delivery, 0, "first", after);
		return deliveryId;
	}

	/**
	 * Takes back deliveries and attempts saved earlier. The attempt due next on each schedule runs when
	 * it is due; one that was running when the state was saved is due at once.
	 */
	restore(deliveries: readonly DeliveryState[], attempts: readonly DeliveryAttempt[]): void {
		this.#log.push(...attempts);
		for (const saved of deliveries) {
			const delivery: Delivery = { ...saved, scheduled: undefined, running: new Set() };
			this.#deliveries.set(delivery.deliveryId, delivery);
			this.#sequence = Math.max(this.#sequence, Number(delivery.deliveryId.replace(/^dlv_/, "")) || 0);
			if (delivery.nextDueAt !== undefined) this.#schedule(delivery, delivery.nextRetry, delivery.nextDueAt);
		}
	}

	/** Sends a notification again, unchanged, as a duplicate. */
	redeliver(deliveryId: string): void {
		this.#run(this.#delivery(deliveryId), 0, "duplicate");
	}

	/**
	 * Delivers a notification now, unchanged, and resolves with the merchant's response. Acknowledged, it
	 * calls off the retry waiting on the clock; refused, the retry schedule stays as it was. A notification
	 * the merchant already acknowledged goes out as a duplicate.
	 */
	resend(deliveryId: string): Promise<DeliveryAttempt | undefined> {
		const delivery = this.#delivery(deliveryId);
		return this.#run(delivery, 0, delivery.acknowledged ? "duplicate" : "resend");
	}

	/** The latest notification whose event id starts with `prefix` (such as `refund:{id}:`), if any. */
	latest(prefix: string): string | undefined {
		let found: string | undefined;
		for (const delivery of this.#deliveries.values())
			if (delivery.eventId.startsWith(prefix)) found = delivery.deliveryId;
		return found;
	}

	/** Resolves once the attempts of this notification running now have ended, with the last one's record. */
	async settled(deliveryId: string): Promise<DeliveryAttempt | undefined> {
		const delivery = this.#delivery(deliveryId);
		await Promise.all(delivery.running);
		return this.#log.findLast((attempt) => attempt.deliveryId === deliveryId);
	}

	/** Resolves once no attempt is running; retries waiting on the clock do not count. */
	async whenSettled(): Promise<void> {
		const running = [...this.#deliveries.values()].flatMap((delivery) => [...delivery.running]);
		if (running.length === 0) return;
		await Promise.all(running);
		return this.whenSettled();
	}

	attempts(): DeliveryAttempt[] {
		return this.#log.map((a) => ({ ...a }));
	}

	/**
	 * Resolves once no attempt is running and no retry is waiting. On a frozen
	 * clock a waiting retry needs the clock to move, so it does not count.
	 */
	whenIdle(): Promise<void> {
		if (this.#idle()) return Promise.resolve();
		return new Promise((resolve) => this.#idleWaiters.push(resolve));
	}

	close(): void {
		this.#closed = true;
		this.#closing.abort();
		this.#settle();
	}

	#idle(): boolean {
		const busy = (delivery: Delivery) =>
			delivery.running.size > 0 || (delivery.scheduled !== undefined && !this.#clock.frozen);
		return this.#closed || ![...this.#deliveries.values()].some(busy);
	}

	#delivery(deliveryId: string): Delivery {
		const delivery = this.#deliveries.get(deliveryId);
		if (delivery) return delivery;
		throw new ConfigurationError([{ field: "deliveryId", message: `names no delivery (${deliveryId})` }], "redelivery");
	}

	/** Runs attempt number `retry` (0 = first try) now, counting it as work in progress until it settles. */
	#run(
		delivery: Delivery,
		retry: number,
		kind: AttemptKind,
		after?: Promise<unknown>,
	): Promise<DeliveryAttempt | undefined> {
		if (this.#closed) return Promise.resolve(undefined);
		const attempt = () => this.#attempt(delivery, retry, kind);
		// A change that could not be saved is not in the books: its notification never goes out.
		const running = (after ? after.then(attempt, () => undefined) : attempt()).finally(() => {
			delivery.running.delete(running);
			this.#settle();
		});
		delivery.running.add(running);
		return running;
	}

	async #attempt(delivery: Delivery, retry: number, kind: AttemptKind): Promise<DeliveryAttempt | undefined> {
		if (this.#closed) return undefined;
		const startedAt = this.#clock.now().toISOString();
		const result = await this.#post(delivery);
		if (this.#closed) return undefined;
		const acknowledged = result.outcome === "acknowledged";
		const finishedAt = this.#clock.now();
		if (acknowledged && kind === "resend") this.#callOffRetry(delivery);
		// Only the schedule's own attempts extend it; a resend or a duplicate leaves it as it is.
		const onSchedule = kind === "first" || kind === "retry";
		const dueAt = !onSchedule
			? delivery.scheduled?.dueAt
			: acknowledged || delivery.acknowledged
				? undefined
				: this.#nextDueAt(delivery, retry + 1, finishedAt.getTime());
		if (acknowledged) delivery.acknowledged = true;
		const record: DeliveryAttempt = {
			deliveryId: delivery.deliveryId,
			attempt: ++delivery.attempts,
			eventId: delivery.eventId,
			kind: delivery.kind,
			url: delivery.url,
			duplicate: kind === "duplicate",
			startedAt,
			finishedAt: finishedAt.toISOString(),
			...result,
			nextAttemptAt: dueAt === undefined ? undefined : new Date(dueAt).toISOString(),
		};
		this.#log.push(record);
		this.#report.attempt(record);
		if (acknowledged && kind !== "duplicate")
			for (let i = 0; i < this.#settings.duplicates; i++) this.#run(delivery, 0, "duplicate");
		if (onSchedule) {
			delivery.nextRetry = retry + 1;
			delivery.nextDueAt = dueAt;
			if (dueAt !== undefined) {
				delivery.lastDueAt = dueAt;
				this.#schedule(delivery, retry + 1, dueAt);
			}
		}
		this.#saved(delivery);
		return record;
	}

	/** Reports where a delivery stands, without what only this process needs (timers, running attempts). */
	#saved(delivery: Delivery): void {
		const { scheduled: _scheduled, running: _running, ...state } = delivery;
		this.#report.delivery(state);
	}

	/** Puts retry number `retry` on the clock (one already due, as a restored one may be, runs at once). */
	#schedule(delivery: Delivery, retry: number, dueAt: number): void {
		const scheduled = { dueAt, cancel: () => {} };
		delivery.scheduled = scheduled;
		scheduled.cancel = this.#clock.schedule(dueAt, () => {
			if (delivery.scheduled === scheduled) delivery.scheduled = undefined;
			this.#run(delivery, retry, "retry");
		});
	}

	#callOffRetry(delivery: Delivery): void {
		if (!delivery.scheduled) return;
		delivery.scheduled.cancel();
		delivery.scheduled = undefined;
		delivery.nextDueAt = undefined;
		this.#settle();
	}

	/**
	 * When retry number `retry` (1-based) is due, or undefined when the schedule has no more. On the
	 * gateway's schedule, an IPN that first went out after its first retry was due (a session paid an hour
	 * after it was created) gets that retry 5 minutes after the failed attempt instead of at once. A retry is
	 * never due before the attempt before it ended.
	 */
	#nextDueAt(delivery: Delivery, retry: number, failedAt: number): number | undefined {
		const scaled = (ms: number) => Math.round(ms * this.#settings.timeScale);
		const delays = this.#settings.retryDelaysMs;
		if (delays) {
			const delay = delays[retry - 1];
			return delay === undefined ? undefined : failedAt + scaled(delay);
		}
		const { retries, firstAfterStartMs, everyMs } = GATEWAY_RETRY_SCHEDULE;
		if (retry > retries) return undefined;
		const due =
			retry === 1 || delivery.lastDueAt === undefined
				? Math.max(delivery.startedAt.getTime() + scaled(firstAfterStartMs), failedAt + scaled(everyMs))
				: delivery.lastDueAt + scaled(everyMs);
		return Math.max(due, failedAt);
	}

	async #post(delivery: Delivery): Promise<AttemptResult> {
		const { ackTimeoutMs } = this.#settings;
		const signal = AbortSignal.timeout(ackTimeoutMs);
		const unanswered = (detail: string, httpStatus?: number): AttemptResult => {
			const outcome = signal.aborted ? "timeout" : "network_error";
			return { outcome, httpStatus, returnCode: undefined, responseExcerpt: undefined, detail };
		};
		let response: Response;
		try {
			response = await (this.#settings.fetch ?? globalThis.fetch)(delivery.url, {
				method: "POST",
				headers: { "content-type": "application/json", "user-agent": "merchant-gateway-sandbox" },
				body: delivery.body,
				signal: AbortSignal.any([signal, this.#closing.signal]),
				redirect: "manual",
			});
		} catch (error) {
			return unanswered(signal.aborted ? `no response within ${ackTimeoutMs} ms` : describe(error));
		}
		let text: string;
		try {
			text = await response.text();
		} catch {
			return unanswered("the response's body could not be read in time", response.status);
		}
		const { status } = response;
		const returnCode = readReturnCode(text);
		const detail =
			status < 200 || status >= 300
				? `HTTP ${status}`
				: returnCode === undefined
					? 'the response has no returnCode (expected JSON {"returnCode":"100"})'
					: returnCode === "100"
						? undefined
						: `returnCode ${JSON.stringify(returnCode)} is not the string "100"`;
		const outcome = detail === undefined ? "acknowledged" : "rejected";
		return { outcome, httpStatus: status, returnCode, responseExcerpt: excerpt(text), detail };
	}

	#settle(): void {
		if (!this.#idle()) return;
		const waiters = this.#idleWaiters;
		this.#idleWaiters = [];
		for (const resolve of waiters) resolve();
	}
}

function readReturnCode(text: string): string | undefined {
	const parsed = parseJsonObject(text);
	if (!parsed || !("returnCode" in parsed)) return undefined;
	const code = parsed.returnCode;
	// Kept as sent, so a numeric 100 shows up as "100 (number)" in the detail.
	return typeof code === "string" ? code : `${String(code)} (${typeof code})`;
}

/** What the merchant's end did with one attempt. */
type AttemptResult = Pick<DeliveryAttempt, "outcome" | "httpStatus" | "returnCode" | "detail" | "responseExcerpt">;

const EXCERPT_LENGTH = 200;

/** The start of a response body for the log, redacted before it is cut; undefined when it is empty. */
function excerpt(text: string): string | undefined {
	const redacted = redactText(text.trim().slice(0, EXCERPT_LENGTH * 4));
	if (redacted === "") return undefined;
	return redacted.length > EXCERPT_LENGTH ? `${redacted.slice(0, EXCERPT_LENGTH)}…` : redacted;
}

function describe(error: unknown): string {
	const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
	const text = typeof cause?.code === "string" ? cause.code : error instanceof Error ? error.message : String(error);
	return redactText(text).slice(0, 200);
}
