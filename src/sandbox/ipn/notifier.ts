import { ConfigurationError } from "../../errors/configuration-error.js";
import { redactText } from "../../internal/redact.js";
import type { ControllableClock } from "../books/clock.js";

/** The gateway's IPN retry schedule (D7, evidence): 10 retries, 30 minutes after the start, then every 5 minutes. */
const GATEWAY_RETRY_SCHEDULE = { retries: 10, firstAfterStartMs: 30 * 60_000, everyMs: 5 * 60_000 } as const;

/** IPN delivery settings with their defaults applied. */
export interface IpnSettings {
	retryDelaysMs: readonly number[] | undefined;
	timeScale: number;
	ackTimeoutMs: number;
	duplicates: number;
	fetch: typeof fetch | undefined;
}

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
	/** When the next retry is due on the sandbox clock, or undefined when none will follow. */
	nextAttemptAt: string | undefined;
}

/** A notification to deliver: the signed body is fixed once and re-sent unchanged. */
export interface Notification {
	kind: "transaction" | "refund";
	eventId: string;
	url: string;
	body: string;
	/** When the transaction (or refund) started: the gateway's retry schedule counts from it (D7). */
	startedAt: Date;
}

/** A notification with where its delivery stands: what a saved state keeps of it. */
export interface DeliveryState extends Notification {
	deliveryId: string;
	/** Attempts made so far, duplicates included (each attempt's number). */
	attempts: number;
	/** When the last retry was due (sandbox-clock epoch ms), for "then every 5 minutes". */
	lastDueAt: number | undefined;
	/** The attempt due next: 0 for the first try, then the retry's number. */
	nextRetry: number;
	/** When it is due (sandbox-clock epoch ms); a past time while it runs. Undefined once done. */
	nextDueAt: number | undefined;
	/** Acknowledged, or out of retries. */
	done: boolean;
}

/**
 * Delivers IPNs: POST, JSON, wait up to `ackTimeoutMs` for `{"returnCode":"100"}`
 * with a 2xx status, retry on the schedule otherwise. Retries are scheduled on
 * the sandbox clock, their delays multiplied by `timeScale`: a real-time clock
 * runs them on timers, a frozen one when a test moves it.
 */
export class Notifier {
	readonly #delays: readonly number[] | undefined;
	readonly #scale: number;
	readonly #ackTimeoutMs: number;
	readonly #duplicates: number;
	readonly #fetch: (() => typeof fetch) | undefined;
	readonly #clock: ControllableClock;
	readonly #onAttempt: (attempt: DeliveryAttempt) => void;
	readonly #log: DeliveryAttempt[] = [];
	readonly #deliveries = new Map<string, DeliveryState>();
	#onDelivery: ((delivery: Readonly<DeliveryState>) => void) | undefined;
	/** Attempts running now. */
	#active = 0;
	/** Retries scheduled on the clock and not yet started. */
	#waiting = 0;
	#idleWaiters: (() => void)[] = [];
	#sequence = 0;
	#closed = false;
	/** Aborts the attempts in flight on close, so a merchant server that never responds cannot hold the process. */
	readonly #closing = new AbortController();

	constructor(settings: IpnSettings, clock: ControllableClock, onAttempt: (attempt: DeliveryAttempt) => void) {
		this.#delays = settings.retryDelaysMs;
		this.#scale = settings.timeScale;
		this.#ackTimeoutMs = settings.ackTimeoutMs;
		this.#duplicates = settings.duplicates;
		const custom = settings.fetch;
		this.#fetch = custom ? () => custom : undefined;
		this.#clock = clock;
		this.#onAttempt = onAttempt;
	}

	/** Queues a notification; the first attempt starts at once. */
	send(notification: Notification): string {
		const deliveryId = `dlv_${String(++this.#sequence).padStart(6, "0")}`;
		const delivery: DeliveryState = {
			...notification,
			deliveryId,
			attempts: 0,
			lastDueAt: undefined,
			nextRetry: 0,
			nextDueAt: this.#clock.nowMs(),
			done: false,
		};
		this.#deliveries.set(deliveryId, delivery);
		this.#onDelivery?.(delivery);
		this.#run(delivery, 0, false);
		return deliveryId;
	}

	/** Calls `listener` whenever a delivery is queued or an attempt of it ends. */
	onDelivery(listener: (delivery: Readonly<DeliveryState>) => void): void {
		this.#onDelivery = listener;
	}

	/**
	 * Takes back deliveries and attempts saved earlier. A delivery not done is retried when it is
	 * due; one whose attempt was running when its state was saved is due at once.
	 */
	restore(deliveries: readonly DeliveryState[], attempts: readonly DeliveryAttempt[]): void {
		this.#log.push(...attempts);
		for (const delivery of deliveries) {
			this.#deliveries.set(delivery.deliveryId, delivery);
			this.#sequence = Math.max(this.#sequence, Number(delivery.deliveryId.replace(/^dlv_/, "")) || 0);
		}
		for (const delivery of deliveries) {
			if (!delivery.done && delivery.nextDueAt !== undefined) this.#retryAt(delivery, delivery.nextDueAt);
		}
	}

	/** Sends a notification again, unchanged, as a duplicate. */
	redeliver(deliveryId: string): void {
		const delivery = this.#deliveries.get(deliveryId);
		if (!delivery) {
			throw new ConfigurationError(
				[{ field: "deliveryId", message: `names no delivery (${deliveryId})` }],
				"redelivery",
			);
		}
		this.#run(delivery, 0, true);
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
		this.#active = 0;
		this.#waiting = 0;
		this.#settle();
	}

	#idle(): boolean {
		return this.#active === 0 && (this.#waiting === 0 || this.#clock.frozen);
	}

	/** Runs attempt number `retry` (0 = first try) now, counting it as work in progress until it settles. */
	#run(delivery: DeliveryState, retry: number, duplicate: boolean): void {
		if (this.#closed) return;
		this.#active++;
		void this.#attempt(delivery, retry, duplicate).finally(() => {
			this.#active = Math.max(0, this.#active - 1);
			this.#settle();
		});
	}

	async #attempt(delivery: DeliveryState, retry: number, duplicate: boolean): Promise<void> {
		const startedAt = this.#clock.now().toISOString();
		const result = await this.#post(delivery);
		if (this.#closed) return;
		const acknowledged = result.outcome === "acknowledged";
		const finishedAt = this.#clock.now();
		const dueAt = !acknowledged && !duplicate ? this.#nextDueAt(delivery, retry + 1, finishedAt.getTime()) : undefined;
		const record: DeliveryAttempt = {
			deliveryId: delivery.deliveryId,
			attempt: ++delivery.attempts,
			eventId: delivery.eventId,
			kind: delivery.kind,
			url: delivery.url,
			duplicate,
			startedAt,
			finishedAt: finishedAt.toISOString(),
			...result,
			nextAttemptAt: dueAt === undefined ? undefined : new Date(dueAt).toISOString(),
		};
		this.#log.push(record);
		if (!duplicate) {
			delivery.nextRetry = retry + 1;
			delivery.nextDueAt = dueAt;
			delivery.done = dueAt === undefined;
			if (dueAt !== undefined) delivery.lastDueAt = dueAt;
		}
		this.#onDelivery?.(delivery);
		this.#onAttempt(record);
		if (acknowledged && !duplicate) for (let i = 0; i < this.#duplicates; i++) this.#run(delivery, 0, true);
		if (dueAt !== undefined) this.#retryAt(delivery, dueAt);
	}

	/** Runs the delivery's next retry once the clock reaches `dueAt`. */
	#retryAt(delivery: DeliveryState, dueAt: number): void {
		this.#waiting++;
		this.#clock.schedule(dueAt, () => {
			this.#waiting = Math.max(0, this.#waiting - 1);
			this.#run(delivery, delivery.nextRetry, false);
		});
	}

	/**
	 * When retry number `retry` (1-based) is due, or undefined when the schedule
	 * has no more. The gateway's retry schedule: the first retry 30 minutes after
	 * the transaction started, then every 5 minutes, 10 in all; an IPN that first
	 * went out later than that (a session paid an hour after it was created)
	 * gets its first retry 5 minutes after the failed attempt instead of at once.
	 * A retry is never due before the attempt before it ended.
	 */
	#nextDueAt(delivery: DeliveryState, retry: number, failedAt: number): number | undefined {
		const scaled = (ms: number) => Math.round(ms * this.#scale);
		if (this.#delays) {
			const delay = this.#delays[retry - 1];
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

	async #post(
		delivery: DeliveryState,
	): Promise<Pick<DeliveryAttempt, "outcome" | "httpStatus" | "returnCode" | "detail">> {
		const doFetch = this.#fetch?.() ?? globalThis.fetch;
		const signal = AbortSignal.timeout(this.#ackTimeoutMs);
		let response: Response;
		try {
			response = await doFetch(delivery.url, {
				method: "POST",
				headers: { "content-type": "application/json", "user-agent": "merchant-gateway-sandbox" },
				body: delivery.body,
				signal: AbortSignal.any([signal, this.#closing.signal]),
				redirect: "manual",
			});
		} catch (error) {
			return signal.aborted
				? {
						outcome: "timeout",
						httpStatus: undefined,
						returnCode: undefined,
						detail: `no response within ${this.#ackTimeoutMs} ms`,
					}
				: { outcome: "network_error", httpStatus: undefined, returnCode: undefined, detail: describe(error) };
		}
		let text: string;
		try {
			text = await response.text();
		} catch {
			const outcome = signal.aborted ? "timeout" : "network_error";
			return {
				outcome,
				httpStatus: response.status,
				returnCode: undefined,
				detail: "the response's body could not be read in time",
			};
		}
		const returnCode = readReturnCode(text);
		if (response.status >= 200 && response.status < 300 && returnCode === "100") {
			return { outcome: "acknowledged", httpStatus: response.status, returnCode, detail: undefined };
		}
		const why =
			response.status < 200 || response.status >= 300
				? `HTTP ${response.status}`
				: returnCode === undefined
					? 'the response has no returnCode (expected JSON {"returnCode":"100"})'
					: `returnCode ${JSON.stringify(returnCode)} is not the string "100"`;
		return { outcome: "rejected", httpStatus: response.status, returnCode, detail: why };
	}

	#settle(): void {
		if (!this.#idle()) return;
		const waiters = this.#idleWaiters;
		this.#idleWaiters = [];
		for (const resolve of waiters) resolve();
	}
}

function readReturnCode(text: string): string | undefined {
	try {
		const parsed: unknown = JSON.parse(text);
		if (typeof parsed === "object" && parsed !== null && "returnCode" in parsed) {
			const code = (parsed as { returnCode: unknown }).returnCode;
			// Kept as sent, so a numeric 100 shows up as "100 (number)" in the detail.
			return typeof code === "string" ? code : `${String(code)} (${typeof code})`;
		}
	} catch {
		// not JSON: no returnCode
	}
	return undefined;
}

function describe(error: unknown): string {
	const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
	const text = typeof cause?.code === "string" ? cause.code : error instanceof Error ? error.message : String(error);
	return redactText(text).slice(0, 200);
}
