import type { ReplayRefusedError } from "../errors/replay-refused-error.js";
import type { Refund, Transaction } from "../schemas/resources.js";
import type { SignedStringForm } from "../signing/canonical.js";
import type { PublicKeyLike } from "../signing/keys.js";
import type { SignVersion } from "../signing/seal.js";
import type { MeterProviderLike, TracerProviderLike } from "../telemetry/options.js";
import type { Logger } from "../transport/observer.js";
import type { BodyTimeout } from "./http-rules.js";
import type { NotificationStore } from "./store.js";
import type { NotificationEvent } from "./verify.js";

// The IPN handler's public shapes: its options, what your callbacks receive, and the delivery and
// response it exchanges with a server adapter. The handler itself is in handler.ts.

/** What your callback learns besides the resource. */
export interface NotificationContext {
	/** Event identity, already de-duplicated by the store. */
	eventId: string;
	/** The signing version the IPN arrived in (reconciled: the version the query's response was verified in). */
	signVersion: SignVersion;
	/**
	 * Aborts when the handler stops waiting for this run: after `callbackTimeoutMs`, or when the
	 * claim's `leaseMs` ends if that comes first. The gateway has then been told to retry, and a
	 * later delivery may run your callback again: stop, and pass the signal on to your database
	 * and HTTP calls. Its `reason` is a `TimeoutError` DOMException.
	 */
	signal: AbortSignal;
	/** `true` when the event came from `createReconciler` (a verified query) rather than an IPN; absent for IPNs. */
	reconciled?: true;
}

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

/** What `createNotificationHandler` needs: the gateway's key, your callbacks, and limits with defaults. */
export interface NotificationHandlerOptions {
	/** The gateway's public key, or several during a key rotation. Parsed once, when the handler is made. */
	gatewayPublicKey: PublicKeyLike | readonly PublicKeyLike[];
	/** Signing versions to accept. @default ["2.0", "2.1"] */
	acceptVersions?: readonly SignVersion[] | undefined;
	/**
	 * How a 2.0 message becomes the string its signature covers. Leave it unset: the SDK uses the
	 * gateway's reference form. Set it only for a gateway that signs differently (the signature
	 * doctor, `npx merchant-gateway doctor`, tells which form verifies and what to set here).
	 * @default the gateway's reference form (`canonicalString`)
	 */
	signedString?: SignedStringForm | undefined;
	/**
	 * Runs once per transaction event, with verified data. Resolve when the event is safely stored; throw to have the
	 * gateway retry.
	 */
	onTransaction: (transaction: Transaction, context: NotificationContext) => unknown;
	/**
	 * Runs once per refund event, with verified data. Resolve when the event is safely stored; throw to have the
	 * gateway retry.
	 */
	onRefund: (refund: Refund, context: NotificationContext) => unknown;
	/** Which events were processed. @default createMemoryStore() (one process, forgotten on restart) */
	store?: NotificationStore | undefined;
	/** Largest body accepted; larger ones get 413 and are not read to the end. @default 65536 */
	maxBodyBytes?: number | undefined;
	/**
	 * How long a claim protects an event being processed, in ms (at most 2147483647, as every duration here);
	 * after a crash the event is processed again once it ends. @default 60000
	 */
	leaseMs?: number | undefined;
	/**
	 * How long each store call (claim, confirm, release) may take, in ms. A claim without an answer by then
	 * gets 500 with a non-100 code and runs nothing (a claim granted later is given back); a confirm without
	 * one is reported to `onError` and the event still acknowledged. Keeps a frozen Redis or an exhausted
	 * PostgreSQL pool from holding deliveries past the gateway's 30 s deadline. @default 2000
	 */
	storeTimeoutMs?: number | undefined;
	/**
	 * How long the handler waits for `onTransaction` / `onRefund`, in ms (never past `leaseMs`). Then it
	 * responds 503 with a non-100 code, inside the gateway's 30 s deadline, so the gateway delivers the
	 * event again, and aborts the callback's `signal`. @default 25000
	 */
	callbackTimeoutMs?: number | undefined;
	/**
	 * How long reading a request's body may take, in ms; a slower one gets 408 and its connection closes.
	 * @default 10000
	 */
	bodyTimeoutMs?: number | undefined;
	/**
	 * After this many failed runs of one event's callback, counted across every instance (thrown or timed
	 * out, gateway deliveries and replays alike), the delivery is acknowledged with "100" so the gateway
	 * stops retrying; the event stays in `failedEvents` for a replay. Unset, a failed callback is never
	 * acknowledged: the gateway retries until its schedule ends (the event is kept all the same). Needs a
	 * store that keeps failed events (the memory, Redis and PostgreSQL stores do).
	 * @default undefined (never acknowledge a failed callback)
	 */
	acknowledgeAfterAttempts?: number | undefined;
	/**
	 * Starts the timers behind `callbackTimeoutMs`, `bodyTimeoutMs` and `storeTimeoutMs`; returns the function
	 * that cancels one.
	 * Tests pass one driven by their own clock (with the store's `now`) to move time instead of waiting.
	 * @default a real timer (setTimeout, unref'ed where the runtime can)
	 */
	startTimer?: ((onExpiry: () => void, delayMs: number) => () => void) | undefined;
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
	onError?: ((error: unknown, info: NotificationErrorInfo) => void) | undefined;
	/**
	 * A console-like logger for warnings: an IPN carrying a status or a field the SDK does not know (drift,
	 * once per kind and process), telemetry that cannot record. Lines carry redacted data only.
	 * @default none
	 */
	logger?: Logger | undefined;
	/**
	 * Where the `ipn.handle` spans go, instead of the global tracer provider (needs `@opentelemetry/api`).
	 * @default the tracer provider registered with `@opentelemetry/api` (none registered: no spans)
	 */
	tracerProvider?: TracerProviderLike | undefined;
	/**
	 * Where the IPN metrics go, instead of the global meter provider (needs `@opentelemetry/api`).
	 * @default the meter provider registered with `@opentelemetry/api` (none registered: no metrics)
	 */
	meterProvider?: MeterProviderLike | undefined;
}

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

/**
 * Failed events, kept by the store for every instance: an event whose callback threw or timed out is
 * recorded with the gateway's signed message as the delivery carried it, the attempts across instances
 * and the last error; a successful run (a replay, a later gateway delivery, a reconciliation) deletes the
 * record. Reading or replaying a record verifies its signed message again, as a delivery is verified.
 * On a store without the failed-event methods (a custom store) each call rejects with a
 * `ConfigurationError` naming the store; deliveries work as before.
 */
export interface FailedEvents {
	/** One page of failed events, in the order they first failed. */
	list(options?: FailedEventListOptions): Promise<FailedEventPage>;
	/** The event's record, or undefined when it is not kept as failed. */
	get(eventId: string): Promise<FailedEvent | undefined>;
	/**
	 * Verifies the recorded signed message again with the handler's gateway keys, exactly as a delivery is
	 * verified, and runs the callback with the event it holds, through the same claim as a delivery: a
	 * replay racing a gateway delivery of the event, or another replay, still runs it once (the other gets
	 * `in_progress`, or `already_processed` once it is done). A success deletes the record; a failure
	 * counts one more attempt. The callback's time limit is `callbackTimeoutMs`, as for a delivery. A
	 * record that does not verify (edited or forged in the store, signed with a key no longer configured,
	 * kept without a signed message) runs nothing: `refused`, reported to `onError` with `replay: true`.
	 */
	retry(eventId: string): Promise<FailedEventRetry>;
	/** Deletes the event's record without running it; true when there was one. */
	discard(eventId: string): Promise<boolean>;
}

/** Which page `failedEvents.list` returns. */
export interface FailedEventListOptions {
	/** The most events on the page, from 1 to 1000. @default 100 */
	limit?: number | undefined;
	/** The `next` of the page before; absent for the first page. @default undefined */
	after?: string | undefined;
}

/** One page of failed events. */
export interface FailedEventPage {
	/** The events, in the order they first failed. */
	events: FailedEvent[];
	/** Pass it as `after` for the next page; undefined on the last page. */
	next: string | undefined;
}

/** An event whose callback failed and has not succeeded since. */
export interface FailedEvent {
	/** The event's identity, as the callback's context had it. */
	eventId: string;
	/**
	 * The event, verified again from the recorded signed message when read (signature, schema and event
	 * id); undefined when the record does not verify (`refusal` says why; `retry` refuses it).
	 */
	event: NotificationEvent | undefined;
	/** Why the record does not verify, and `retry` would refuse it; absent when it verifies. */
	refusal?: ReplayRefusedError;
	/** Failed runs across every instance: gateway deliveries, reconciliations and replays. */
	attempts: number;
	/** The last failure's error: its class name and message, redacted (never a stack). */
	lastError: string;
	/** When it first failed, by the store's clock. */
	firstFailedAt: Date;
	/** When it last failed, by the store's clock. */
	lastFailedAt: Date;
}

/** How a replay (`failedEvents.retry`) ended. */
export interface FailedEventRetry {
	/** The event replayed. */
	eventId: string;
	/**
	 * - `processed`: the callback resolved; the record is deleted;
	 * - `already_processed`: the event was processed meanwhile (a gateway delivery): nothing ran;
	 * - `in_progress`: another run holds the event's claim right now: nothing ran;
	 * - `failed`: the callback threw or timed out (one more attempt), or the store failed;
	 * - `refused`: the record does not verify (`error` is a `ReplayRefusedError` saying why): nothing ran,
	 *   and nothing will; the record stays until it is discarded or the event succeeds otherwise;
	 * - `not_found`: no failed event of this id is kept: nothing ran.
	 */
	result: "processed" | "already_processed" | "in_progress" | "failed" | "refused" | "not_found";
	/** Failed runs so far, this one included, when it failed and was recorded. */
	attempts?: number;
	/**
	 * Why it failed; for `processed`, the store's failure to mark the event done (then a later delivery
	 * could run it again).
	 */
	error?: unknown;
}

/** One IPN delivery as the handler needs it, whatever the server. */
export interface NotificationDelivery {
	/** The HTTP method. */
	method: string | undefined;
	/** The Content-Type header, when present. */
	contentType: string | null | undefined;
	/** The Content-Length header, when present: a body declared over the limit is refused before it is read. */
	contentLength: string | null | undefined;
	/**
	 * Reads the body: text, bytes, or the object a body parser already made. It stops once more than
	 * `maxBytes` arrived, or once `timeout.ms` passed (measured with `timeout.start`), and rejects then.
	 */
	readBody(maxBytes: number, timeout: BodyTimeout): Promise<unknown>;
}

/** The handler's response to a delivery, for a server adapter to write. */
export interface NotificationResponse {
	/** The HTTP status. */
	status: number;
	/** The acknowledgement, as JSON text (`application/json; charset=utf-8`, not to be cached). */
	body: string;
	/** The body was not read to its end: close the connection after the response. */
	closeConnection?: boolean;
	/** The `Allow` header of a 405 response. */
	allow?: string;
}
