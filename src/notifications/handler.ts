import * as z from "zod/mini";
import { ConfigurationError } from "../errors/configuration-error.js";
import { InvalidNotificationError } from "../errors/invalid-notification-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { callHook } from "../internal/hooks.js";
import {
	duration,
	optionalFunction,
	parseOptions,
	positiveCount,
	positiveInteger,
	requiredFunction,
} from "../internal/options.js";
import { lazySchema } from "../schemas/lazy.js";
import type { SignedStringForm } from "../signing/canonical.js";
import { toPublicKeys } from "../signing/keys.js";
import { type DeliveryRecord, HandlerTelemetry, refusalReason } from "../telemetry/ipn.js";
import { telemetryOptionsShape } from "../telemetry/options.js";
import type { Logger } from "../transport/observer.js";
import { type Acknowledgement, acknowledge, acknowledgeFailure } from "./acknowledge.js";
import {
	claimOptionsShape,
	createEventRunner,
	type EventOutcome,
	type RunOutcome,
	realTimer,
	storeCalls,
} from "./claimed-event.js";
import { signedMessage } from "./failed-event-record.js";
import { createFailedEvents } from "./failed-events.js";
import type {
	NotificationDelivery,
	NotificationErrorInfo,
	NotificationHandler,
	NotificationHandlerOptions,
	NotificationResponse,
} from "./handler-types.js";
import {
	type BodyTimeout,
	bodyTooLarge,
	DEFAULT_MAX_BODY_BYTES,
	declaredLength,
	HttpRuleError,
	isJsonContentType,
	ruleStatus,
} from "./http-rules.js";
import { createMemoryStore } from "./memory-store.js";
import { warnIfMemoryStoreInProduction } from "./production-warning.js";
import { keepsFailedEvents, storeOption } from "./store.js";
import { type NotificationEvent, type OpenedNotification, openNotification } from "./verify.js";
import { deliveryOf, toResponse } from "./web-request.js";

type Options = NotificationHandlerOptions;

/** The handler's option rules and defaults (the keys and versions are checked where they are loaded). */
const handlerOptions = lazySchema(() =>
	z.object({
		signedString: optionalFunction<SignedStringForm>(),
		onTransaction: requiredFunction<Options["onTransaction"]>(),
		onRefund: requiredFunction<Options["onRefund"]>(),
		store: z.optional(storeOption()),
		maxBodyBytes: positiveInteger(DEFAULT_MAX_BODY_BYTES),
		...claimOptionsShape(),
		callbackTimeoutMs: duration(25_000),
		bodyTimeoutMs: duration(10_000),
		acknowledgeAfterAttempts: z.optional(positiveCount()),
		onError: optionalFunction<NonNullable<Options["onError"]>>(),
		logger: z.optional(
			z.custom<Logger>((value) => typeof value === "object" && value !== null, "must be an object with a warn method"),
		),
		...telemetryOptionsShape(),
	}),
);

/** A delivery's response and the outcome it came from (deliveries that join a run in flight share both). */
interface Settled {
	outcome: EventOutcome;
	response: NotificationResponse;
}

function failure(status: number, description: string): NotificationResponse {
	const body: Acknowledgement = acknowledgeFailure(description, String(status));
	return { status, body: JSON.stringify(body) };
}

/** The HTTP status a refusal gets: its rule's, 401 for a signature, 400 for the body, else 500. */
function refusalStatus(error: unknown): number {
	const status = ruleStatus(error);
	if (status !== undefined) return status;
	if (error instanceof SignatureVerificationError) return 401;
	if (error instanceof InvalidNotificationError) return 400;
	return 500;
}

/**
 * Makes the IPN route: verifies each delivery, hands verified, typed events to
 * `onTransaction` / `onRefund` once per event identity, and responds to the
 * gateway:
 *
 * - 200 + returnCode "100" only after your callback resolved (or for a
 *   duplicate of an event already processed);
 * - 500 + a non-100 code when your callback or the store threw, or the store did
 *   not answer within `storeTimeoutMs` (the gateway retries; the claim is
 *   released so the retry runs your callback again);
 * - 503 + a non-100 code when your callback has not settled after
 *   `callbackTimeoutMs` (or its lease ended first): the gateway retries, and
 *   the callback's `signal` aborts;
 * - a callback that threw or timed out is kept as a failed event (on a store
 *   that keeps them: see `failedEvents`); with `acknowledgeAfterAttempts: n`,
 *   its n-th failed run across the fleet gets 200 + "100" instead, so the
 *   gateway stops retrying and the event waits for a replay;
 * - 401 for a bad or missing signature, 400 for a malformed body, 413 for a body
 *   over `maxBodyBytes` (not read to the end), 408 for a body slower than
 *   `bodyTimeoutMs`, 405 for a method other than POST, 415 for a Content-Type
 *   other than `application/json` (charset absent or UTF-8);
 * - deliveries of an event that is being processed right now wait for that run
 *   and get its response, until the handler stops waiting for it; later ones, and
 *   those to another process, get 409 until the claim's lease ends.
 *
 * Exactly once, precisely: your callback runs once per event unless a run
 * outlives its lease. Once `leaseMs` has passed since the claim, the next
 * delivery claims the event again and runs your callback again, even if the
 * first run is still going (it may never settle). Stop when `signal` aborts
 * and keep your writes idempotent (an upsert by `eventId`). A run that succeeds
 * late still marks the event processed; one that fails late leaves the claim to
 * lapse.
 *
 * The result is a Web `(request) => Promise<Response>` for Next.js, Hono, Bun,
 * Deno and workers; wrap it with `toNodeListener` for node:http and Express.
 * Both end in its `handle` method, which takes a server-neutral delivery.
 *
 * On the default in-memory store with `NODE_ENV=production`, the first handler made
 * emits one process warning (`MERCHANT_GATEWAY_MEMORY_STORE`): that store is for one
 * process in development.
 *
 * @throws ConfigurationError for bad options; InvalidKeyError for a bad key.
 */
export function createNotificationHandler(options: NotificationHandlerOptions): NotificationHandler {
	const config = parseOptions(handlerOptions, options, "notification handler options");
	const publicKeys = toPublicKeys(options.gatewayPublicKey);
	const verifyOptions = {
		gatewayPublicKey: publicKeys,
		acceptVersions: options.acceptVersions,
		signedString: config.signedString,
	};
	const store = config.store ?? createMemoryStore();
	warnIfMemoryStoreInProduction(store);
	const { acknowledgeAfterAttempts } = config;
	if (acknowledgeAfterAttempts !== undefined && !keepsFailedEvents(store)) {
		const message =
			"needs a store that keeps failed events (recordFailure...), as the memory, Redis and PostgreSQL stores do";
		throw new ConfigurationError([{ field: "acknowledgeAfterAttempts", message }], "notification handler options");
	}
	const { maxBodyBytes, onTransaction, onRefund, onError } = config;
	const telemetry = new HandlerTelemetry(
		{ tracerProvider: config.tracerProvider, meterProvider: config.meterProvider },
		config.logger,
	);
	const startTimer = config.startTimer ?? realTimer;
	const bodyTimeout: BodyTimeout = { ms: config.bodyTimeoutMs, start: startTimer };
	const runnerOptions = {
		store,
		leaseMs: config.leaseMs,
		callbackTimeoutMs: config.callbackTimeoutMs,
		storeTimeoutMs: config.storeTimeoutMs,
		startTimer,
	};
	const runEvent = createEventRunner(runnerOptions);
	// Made here, not at module load: acknowledge() runs the redaction patterns, and importing the SDK should not.
	const processed: NotificationResponse = { status: 200, body: JSON.stringify(acknowledge("Processed.")) };
	const duplicate: NotificationResponse = { status: 200, body: JSON.stringify(acknowledge("Already processed.")) };
	const stillRunning = failure(503, "The notification is still being processed; it will be retried.");
	const held = failure(409, "This event is being processed by another worker; retry later.");
	const notProcessed = failure(500, "The notification could not be processed; it will be retried.");
	/** Events being processed in this process: later deliveries join them until the handler stops waiting. */
	const inFlight = new Map<string, Promise<Settled>>();

	function report(error: unknown, status: number, eventId: string | undefined, replay?: true): void {
		callHook<[unknown, NotificationErrorInfo]>(
			onError,
			error,
			replay ? { status, eventId, replay } : { status, eventId },
		);
	}

	/**
	 * A failed run's response: 200 + "100" once its failed runs reach `acknowledgeAfterAttempts` (the event
	 * is kept for a replay and the gateway stops), else `retry`. What went wrong is reported either way.
	 */
	function failedRun(
		outcome: Extract<EventOutcome, { kind: "callback_failed" | "timed_out" }>,
		retry: NotificationResponse,
	) {
		const { eventId, attempts } = outcome;
		const parked =
			acknowledgeAfterAttempts !== undefined && attempts !== undefined && attempts >= acknowledgeAfterAttempts;
		const status = parked ? 200 : retry.status;
		if (outcome.problem !== undefined) report(outcome.problem, status, eventId);
		report(outcome.error, status, eventId);
		if (!parked) return retry;
		const description = `The callback failed ${attempts} times; the event is kept as failed for a replay.`;
		return { status: 200, body: JSON.stringify(acknowledge(description)) };
	}

	/** Every delivery's outcome becomes its response here, and what went wrong is reported here. */
	function respond(outcome: EventOutcome): NotificationResponse {
		const { eventId } = outcome;
		switch (outcome.kind) {
			case "processed":
				// The work is done: acknowledging avoids a retry that would run it again. A store that failed to
				// confirm (only a rare delivery after the lease ends could repeat it) or a lost lease is reported.
				if (outcome.problem !== undefined) report(outcome.problem, 200, eventId);
				return processed;
			case "duplicate":
				return duplicate;
			case "held":
				report(
					new InvalidNotificationError("The event is being processed elsewhere (its claim has not expired)."),
					409,
					eventId,
				);
				return held;
			case "timed_out":
				return failedRun(outcome, stillRunning);
			case "callback_failed":
				return failedRun(outcome, notProcessed);
			case "store_unavailable":
				report(outcome.error, 500, eventId);
				return notProcessed;
			case "refused": {
				const status = refusalStatus(outcome.error);
				report(outcome.error, status, eventId);
				// A refusal by a rule says why; an unexpected error is not shown to the gateway.
				const known = status !== 500 || ruleStatus(outcome.error) !== undefined;
				return known ? failure(status, (outcome.error as Error).message) : notProcessed;
			}
		}
	}

	/** How a run ended after its response was sent: only reported, with the status that response had. */
	function onLate(outcome: RunOutcome): void {
		if (outcome.kind === "processed" && outcome.problem !== undefined) report(outcome.problem, 200, outcome.eventId);
		else if (outcome.kind === "callback_failed") report(outcome.error, 503, outcome.eventId);
		else if (outcome.kind === "store_unavailable") report(outcome.error, 500, outcome.eventId);
	}

	/** The method, Content-Type and declared length rules: all checked before any byte of the body is read. */
	function checkHead(delivery: NotificationDelivery): void {
		if (delivery.method !== "POST") throw new HttpRuleError(405, "Only POST is accepted here.", "method");
		if (!isJsonContentType(delivery.contentType)) {
			throw new HttpRuleError(415, "The Content-Type must be application/json (UTF-8).", "content-type");
		}
		const length = declaredLength(delivery.contentLength);
		if (length !== undefined && length > maxBodyBytes) throw bodyTooLarge(maxBodyBytes);
	}

	/** The verified IPN, and the body it was read from (a failed run's record keeps it for a replay). */
	function verifyBody(body: unknown): { opened: OpenedNotification; body: unknown } {
		if (body === "" || (body instanceof Uint8Array && body.length === 0) || body === undefined || body === null) {
			throw new InvalidNotificationError("The body is empty.", "body");
		}
		return { opened: openNotification(body, verifyOptions), body };
	}

	/**
	 * The callback a run of `event` calls: a delivery's (inside its record, so that the callback's spans
	 * nest under the delivery's), or a replay's of the recorded event.
	 */
	function callbackFor(event: NotificationEvent, record?: DeliveryRecord) {
		const { eventId, signVersion } = event;
		return (signal: AbortSignal) => {
			const context = { eventId, signVersion, signal };
			const call = () =>
				event.type === "transaction" ? onTransaction(event.transaction, context) : onRefund(event.refund, context);
			return record === undefined ? call() : record.inCallback(call);
		};
	}

	async function run(event: NotificationEvent, body: unknown, record: DeliveryRecord): Promise<Settled> {
		const message = () => signedMessage(body);
		const outcome = await runEvent(event.eventId, callbackFor(event, record), onLate, message, record.watch);
		return { outcome, response: respond(outcome) };
	}

	async function handle(delivery: NotificationDelivery): Promise<NotificationResponse> {
		const record = telemetry.start(delivery.method);
		let opened: OpenedNotification;
		let body: unknown;
		try {
			checkHead(delivery);
			({ opened, body } = await record.verifying(async () =>
				verifyBody(await delivery.readBody(maxBodyBytes, bodyTimeout)),
			));
		} catch (error) {
			const outcome: EventOutcome = { kind: "refused", eventId: undefined, error };
			const response = respond(outcome);
			// The rest of the body was not read: the connection cannot carry another request.
			if (response.status === 413 || response.status === 408) response.closeConnection = true;
			if (response.status === 405) response.allow = "POST";
			record.finished(outcome, response, false, refusalReason(error));
			return response;
		}
		record.verified(opened);
		telemetry.drift(opened, record);
		const { event } = opened;
		const { eventId } = event;
		const running = inFlight.get(eventId);
		if (running) {
			const joined = await running;
			record.finished(joined.outcome, joined.response, true);
			return joined.response;
		}
		// Registered before any await, so a concurrent delivery of this event joins this run instead of claiming again.
		const settled = run(event, body, record);
		inFlight.set(eventId, settled);
		try {
			const { outcome, response } = await settled;
			record.finished(outcome, response, false);
			return response;
		} finally {
			if (inFlight.get(eventId) === settled) inFlight.delete(eventId);
		}
	}

	const failedEvents = createFailedEvents({
		store,
		runEvent,
		calls: storeCalls(runnerOptions),
		verifyOptions,
		callbackFor,
		onLate,
		// A delivery's status for the same message: 401 unsigned or not verified, 400 not an IPN of this event.
		onRefused: (error, eventId) =>
			report(error, error.reason === "invalid" || error.reason === "other_event" ? 400 : 401, eventId, true),
	});
	const handler = async (request: Request) => toResponse(await handle(deliveryOf(request)));
	return Object.assign(handler, { handle, failedEvents });
}
