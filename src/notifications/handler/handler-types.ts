import * as z from "zod/mini";
import {
	duration,
	optionalFunction,
	positiveCount,
	positiveInteger,
	requiredFunction,
} from "../../internal/options.js";
import { lazySchema } from "../../schemas/lazy.js";
import type { Refund, Transaction } from "../../schemas/resources.js";
import type { SignedStringForm } from "../../signing/canonical.js";
import type { Logger } from "../../transport/observer.js";
import { DEFAULT_LEASE_MS, DEFAULT_STORE_TIMEOUT_MS } from "../claims/claimed-event.js";
import type { FailedEvents, NotificationContext } from "../claims/run-types.js";
import { storeOption } from "../claims/store.js";
import type { NotificationDelivery, NotificationResponse } from "../http/exchange.js";
import { DEFAULT_MAX_BODY_BYTES } from "../http/http-rules.js";
import type { VerifyNotificationOptions } from "../message/verify.js";

// The IPN handler's public shapes: its options and what it is. What your callbacks receive is in
// claims/run-types.ts, the delivery and response it exchanges with a server adapter in http/exchange.ts.

/** Where a failure happened and what the gateway was told. */
export interface NotificationErrorInfo {
	/** HTTP status of the response: 4xx for a refused request, 409, 500 or 503 for a retryable failure. */
	status: number;
	/** The event, when the IPN was verified far enough to know it. */
	eventId: string | undefined;
	/**
	 * `true` for a failed event's record that `failedEvents.retry` refused (a `ReplayRefusedError`); `status` is
	 * then what a delivery of its message would get (401: unsigned or not verified; 400: not an IPN of that event).
	 */
	replay?: true;
}

/** Every option of `createNotificationHandler` but the keys and versions, with its rule and its documentation. */
function handlerOptionsShape() {
	return {
		/**
		 * Runs once per transaction event, with verified data. Resolve when the event is safely stored; throw to have the
		 * gateway retry.
		 */
		onTransaction: requiredFunction<(transaction: Transaction, context: NotificationContext) => unknown>(),
		/**
		 * Runs once per refund event, with verified data. Resolve when the event is safely stored; throw to have the
		 * gateway retry.
		 */
		onRefund: requiredFunction<(refund: Refund, context: NotificationContext) => unknown>(),
		/** Which events were processed. @default createMemoryStore() (one process, forgotten on restart) */
		store: z.optional(storeOption()),
		/** Largest body accepted; larger ones get 413 and are not read to the end. @default 65536 */
		maxBodyBytes: positiveInteger(DEFAULT_MAX_BODY_BYTES),
		/**
		 * How long a claim protects an event being processed, in ms (at most 2147483647, as every duration here);
		 * after a crash the event is processed again once it ends. @default 60000
		 */
		leaseMs: duration(DEFAULT_LEASE_MS),
		/**
		 * How long each store call (claim, confirm, release) may take, in ms. A claim without an answer by then
		 * gets 500 with a non-100 code and runs nothing (a claim granted later is given back); a confirm without
		 * one is reported to `onError` and the event still acknowledged. Keeps a frozen Redis or an exhausted
		 * PostgreSQL pool from holding deliveries past the gateway's 30 s deadline. @default 2000
		 */
		storeTimeoutMs: duration(DEFAULT_STORE_TIMEOUT_MS),
		/**
		 * Starts the timers behind `callbackTimeoutMs`, `bodyTimeoutMs` and `storeTimeoutMs`; returns the function
		 * that cancels one.
		 * Tests pass one driven by their own clock (with the store's `now`) to move time instead of waiting.
		 * @default a real timer (setTimeout, unref'ed where the runtime can)
		 */
		startTimer: optionalFunction<(onExpiry: () => void, delayMs: number) => () => void>(),
		/**
		 * How long the handler waits for `onTransaction` / `onRefund`, in ms (never past `leaseMs`). Then it
		 * responds 503 with a non-100 code, inside the gateway's 30 s deadline, so the gateway delivers the
		 * event again, and aborts the callback's `signal`. @default 25000
		 */
		callbackTimeoutMs: duration(25_000),
		/**
		 * How long reading a request's body may take, in ms; a slower one gets 408 and its connection closes.
		 * @default 10000
		 */
		bodyTimeoutMs: duration(10_000),
		/**
		 * After this many failed runs of one event's callback, counted across every instance (thrown or timed
		 * out, gateway deliveries and replays alike), the delivery is acknowledged with "100" so the gateway
		 * stops retrying; the event stays in `failedEvents` for a replay. Unset, a failed callback is never
		 * acknowledged: the gateway retries until its schedule ends (the event is kept all the same). Needs a
		 * store that keeps failed events (the memory, Redis and PostgreSQL stores do).
		 * @default undefined (never acknowledge a failed callback)
		 */
		acknowledgeAfterAttempts: z.optional(positiveCount()),
		/**
		 * Told about every request that did not end in "100", and about a failed callback acknowledged after
		 * `acknowledgeAfterAttempts` (status 200): typed SDK errors
		 * (`SignatureVerificationError`, `InvalidNotificationError`), whatever your
		 * callback or store threw, or a `TimeoutError` DOMException when your callback
		 * outlived `callbackTimeoutMs`. Plug your logger here; the SDK logs nothing itself (but for one
		 * warning: the memory store under `NODE_ENV=production`). It is not awaited, and what it throws or
		 * rejects with is ignored: a failing logger never changes a response.
		 * @default undefined
		 */
		onError: optionalFunction<(error: unknown, info: NotificationErrorInfo) => void>(),
		/**
		 * A console-like logger for warnings: an IPN carrying a status or a field the SDK does not know (drift,
		 * once per kind and process), telemetry that cannot record. Lines carry redacted data only.
		 * @default none
		 */
		logger: z.optional(
			z.custom<Logger>((value) => typeof value === "object" && value !== null, "must be an object with a warn method"),
		),
	};
}
type HandlerOptionsObject = z.ZodMiniObject<ReturnType<typeof handlerOptionsShape>>;

/** The handler's option rules and defaults (the keys and versions are checked where they are loaded). */
export const handlerOptionsSchema = lazySchema(() =>
	z.object({ signedString: optionalFunction<SignedStringForm>(), ...handlerOptionsShape() }),
);

/**
 * What `createNotificationHandler` needs: the gateway's key (loaded once, when the handler is made) and
 * versions as `verifyNotification` takes them, your callbacks, and limits with defaults.
 * @interface
 */
export type NotificationHandlerOptions = VerifyNotificationOptions & z.input<HandlerOptionsObject>;

/**
 * The IPN route. Call it as a Web `(request: Request) => Promise<Response>` (Next.js, Hono, Bun, Deno,
 * workers), or wrap it with `toNodeListener` for node:http and Express, which calls `handle`.
 */
export interface NotificationHandler {
	(request: Request): Promise<Response>;
	/**
	 * The same route, free of any server's request type: responds to one delivery described by `delivery`.
	 * Both the Web form above and `toNodeListener` come down to this call.
	 */
	handle(delivery: NotificationDelivery): Promise<NotificationResponse>;
	/**
	 * The events whose callback failed (threw or timed out) and has not succeeded since, as the store keeps
	 * them: list them, look at one, replay it, or discard it.
	 */
	readonly failedEvents: FailedEvents;
}
