import { ConfigurationError } from "../../errors/configuration-error.js";
import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import { SignatureVerificationError } from "../../errors/signature-verification-error.js";
import { parseOptions } from "../../internal/options.js";
import { findDrift } from "../../schemas/drift.js";
import { driftWarning, firstReports } from "../../schemas/drift-reports.js";
import { toPublicKeys } from "../../signing/keys.js";
import { createEventRunner, type EventOutcome, type RunOutcome, realTimer, runEvent } from "../claims/claimed-event.js";
import { signedMessage } from "../claims/failed-event-record.js";
import { createFailedEvents } from "../claims/failed-events.js";
import { createMemoryStore, warnIfMemoryStoreInProduction } from "../claims/memory-store.js";
import { keepsFailedEvents } from "../claims/store.js";
import type { NotificationDelivery, NotificationResponse } from "../http/exchange.js";
import {
	type BodyTimeout,
	bodyTooLarge,
	declaredLength,
	HttpRuleError,
	isJsonContentType,
	ruleStatus,
} from "../http/http-rules.js";
import { deliveryOf, toResponse } from "../http/web-request.js";
import { type Acknowledgement, acknowledge, acknowledgeFailure } from "../message/acknowledge.js";
import { type NotificationEvent, type OpenedNotification, openNotification } from "../message/verify.js";
import { DeliveryReports } from "./delivery-reports.js";
import {
	type DeliveryWatch,
	IPN_OPERATION,
	ipnDeliveries,
	type RefusalReason,
	refusalReason,
	UNWATCHED_DELIVERY,
} from "./delivery-watch.js";
import { handlerOptionsSchema, type NotificationHandler, type NotificationHandlerOptions } from "./handler-types.js";

/** A delivery's response and the outcome it came from (deliveries that join a run in flight share both). */
interface Settled {
	outcome: EventOutcome;
	response: NotificationResponse;
}

/** What every delivery to one handler shares: its checked options, its runner and its responses. */
type HandlerContext = ReturnType<typeof handlerContext>;

function failure(status: number, description: string): NotificationResponse {
	const body: Acknowledgement = acknowledgeFailure(description, String(status));
	return { status, body: JSON.stringify(body) };
}

/** The HTTP status a refusal gets: 401 for a signature, its rule's or 400 for the body; none for any other error. */
function refusalStatus(error: unknown): number | undefined {
	if (error instanceof SignatureVerificationError) return 401;
	if (error instanceof InvalidNotificationError) return ruleStatus(error) ?? 400;
	return undefined;
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
	const context = handlerContext(options);
	const { runner, verifyOptions, reports, onLate } = context;
	const failedEvents = createFailedEvents({
		runner,
		verifyOptions,
		callbackFor: (event, watch) => callbackFor(context, event, watch),
		onLate,
		warn: (message) => reports.warn(message),
		// A delivery's status for the same message: 401 unsigned or not verified, 400 not an IPN of this event.
		onRefused: (error, eventId) =>
			reports.report(error, error.reason === "invalid" || error.reason === "other_event" ? 400 : 401, eventId, true),
	});
	const handle = (delivery: NotificationDelivery) => handleDelivery(context, delivery);
	const handler = async (request: Request) => toResponse(await handle(deliveryOf(request)));
	return Object.assign(handler, { handle, failedEvents });
}

/** The handler's options checked, its keys loaded and its store chosen: what its deliveries share. */
function handlerContext(options: NotificationHandlerOptions) {
	const config = parseOptions(handlerOptionsSchema, options, "notification handler options");
	const verifyOptions = {
		gatewayPublicKey: toPublicKeys(options.gatewayPublicKey),
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
	const reports = new DeliveryReports(config);
	const startTimer = config.startTimer ?? realTimer;
	const runner = createEventRunner({
		store,
		leaseMs: config.leaseMs,
		callbackTimeoutMs: config.callbackTimeoutMs,
		storeTimeoutMs: config.storeTimeoutMs,
		startTimer,
	});
	return {
		maxBodyBytes: config.maxBodyBytes,
		bodyTimeout: { ms: config.bodyTimeoutMs, start: startTimer } satisfies BodyTimeout,
		verifyOptions,
		onTransaction: config.onTransaction,
		onRefund: config.onRefund,
		acknowledgeAfterAttempts,
		reports,
		runner,
		// Made here, not at module load: acknowledge() runs the redaction patterns, and importing the SDK should not.
		responses: {
			processed: { status: 200, body: JSON.stringify(acknowledge("Processed.")) },
			duplicate: { status: 200, body: JSON.stringify(acknowledge("Already processed.")) },
			stillRunning: failure(503, "The notification is still being processed; it will be retried."),
			held: failure(409, "This event is being processed by another worker; retry later."),
			notProcessed: failure(500, "The notification could not be processed; it will be retried."),
		},
		/** Events being processed in this process: later deliveries join them until the handler stops waiting. */
		inFlight: new Map<string, Promise<Settled>>(),
		onLate: (outcome: RunOutcome) => reports.late(outcome),
	};
}

/**
 * One delivery, from its request to its response: the head's rules, the body read and verified, then the
 * event run once claimed (or joined, when this process is running it already) and its outcome acknowledged.
 */
async function handleDelivery(context: HandlerContext, delivery: NotificationDelivery): Promise<NotificationResponse> {
	const { reports, inFlight } = context;
	const watch = ipnDeliveries.start({ method: delivery.method }, reports.instrumentationFailed) ?? UNWATCHED_DELIVERY;
	let opened: OpenedNotification;
	let body: unknown;
	try {
		checkHead(context, delivery);
		watch.verifying();
		({ opened, body } = verifyBody(context, await delivery.readBody(context.maxBodyBytes, context.bodyTimeout)));
	} catch (error) {
		const outcome: EventOutcome = { kind: "refused", eventId: undefined, error };
		const response = respond(context, outcome);
		// The rest of the body was not read: the connection cannot carry another request.
		if (response.status === 413 || response.status === 408) response.closeConnection = true;
		if (response.status === 405) response.allow = "POST";
		return finish(context, watch, outcome, response, false, refusalReason(error));
	}
	watch.verified(opened);
	// Drift is looked for only when something listens: onError or the logger, or an instrumentation.
	if (reports.listens || watch !== UNWATCHED_DELIVERY) {
		const drifts = findDrift(opened.schema.get(), opened.fields);
		if (drifts.length > 0)
			for (const report of firstReports(IPN_OPERATION, drifts)) {
				reports.warn(driftWarning(report));
				watch.drift(report);
			}
	}
	const { event } = opened;
	const { eventId } = event;
	const running = inFlight.get(eventId);
	if (running) {
		const joined = await running;
		return finish(context, watch, joined.outcome, joined.response, true, undefined);
	}
	// Registered before any await, so a concurrent delivery of this event joins this run instead of claiming again.
	const settled = runDelivered(context, event, body, watch);
	inFlight.set(eventId, settled);
	try {
		const { outcome, response } = await settled;
		return finish(context, watch, outcome, response, false, undefined);
	} finally {
		if (inFlight.get(eventId) === settled) inFlight.delete(eventId);
	}
}

/**
 * A delivery's response, once `onError` and its watch were told how it ended (a delivery that joined a run
 * shares that run's outcome, reported once, with the run's own delivery).
 */
function finish(
	context: HandlerContext,
	watch: DeliveryWatch,
	outcome: EventOutcome,
	response: NotificationResponse,
	joined: boolean,
	refusal: RefusalReason | undefined,
): NotificationResponse {
	if (!joined) context.reports.outcome(outcome, response.status);
	watch.finished(outcome, response, joined, refusal);
	return response;
}

/** The method, Content-Type and declared length rules: all checked before any byte of the body is read. */
function checkHead(context: HandlerContext, delivery: NotificationDelivery): void {
	if (delivery.method !== "POST") throw new HttpRuleError(405, "Only POST is accepted here.", "method");
	if (!isJsonContentType(delivery.contentType)) {
		throw new HttpRuleError(415, "The Content-Type must be application/json (UTF-8).", "content-type");
	}
	const length = declaredLength(delivery.contentLength);
	if (length !== undefined && length > context.maxBodyBytes) throw bodyTooLarge(context.maxBodyBytes);
}

/** The verified IPN, and the body it was read from (a failed run's record keeps it for a replay). */
function verifyBody(context: HandlerContext, body: unknown): { opened: OpenedNotification; body: unknown } {
	if (body === "" || (body instanceof Uint8Array && body.length === 0) || body === undefined || body === null) {
		throw new InvalidNotificationError("The body is empty.", "body");
	}
	return { opened: openNotification(body, context.verifyOptions), body };
}

/** Runs a verified delivery's event once claimed, and makes its response. */
async function runDelivered(
	context: HandlerContext,
	event: NotificationEvent,
	body: unknown,
	watch: DeliveryWatch,
): Promise<Settled> {
	const message = () => signedMessage(body);
	const callback = callbackFor(context, event, watch);
	const outcome = await runEvent(context.runner, event.eventId, callback, context.onLate, message, watch.steps);
	return { outcome, response: respond(context, outcome) };
}

/**
 * The callback a run of `event` calls, inside its watch's `inCallback` (a delivery's, or a replay's of the
 * recorded event), so that an instrumentation's span is active while it runs.
 */
function callbackFor(context: HandlerContext, event: NotificationEvent, watch: Pick<DeliveryWatch, "inCallback">) {
	const { eventId, signVersion } = event;
	const { onTransaction, onRefund } = context;
	return (signal: AbortSignal) => {
		const callbackContext = { eventId, signVersion, signal };
		const call = () =>
			event.type === "transaction"
				? onTransaction(event.transaction, callbackContext)
				: onRefund(event.refund, callbackContext);
		return watch === UNWATCHED_DELIVERY ? call() : watch.inCallback(call);
	};
}

/** Every delivery's outcome becomes its response here (what went wrong is reported in `finish`). */
function respond(context: HandlerContext, outcome: EventOutcome): NotificationResponse {
	const { responses } = context;
	switch (outcome.kind) {
		case "processed":
			// The work is done: acknowledging avoids a retry that would run it again, even when the store failed
			// to confirm (only a rare delivery after the lease ends could repeat it) or the lease was lost.
			return responses.processed;
		case "duplicate":
			return responses.duplicate;
		case "held":
			return responses.held;
		case "timed_out":
			return failedRun(context, outcome, responses.stillRunning);
		case "callback_failed":
			return failedRun(context, outcome, responses.notProcessed);
		case "store_unavailable":
			return responses.notProcessed;
		case "refused": {
			const status = refusalStatus(outcome.error);
			// A refusal says why; an unexpected error (500) is not shown to the gateway.
			return status === undefined ? responses.notProcessed : failure(status, (outcome.error as Error).message);
		}
	}
}

/**
 * A failed run's response: 200 + "100" once its failed runs reach `acknowledgeAfterAttempts` (the event
 * is kept for a replay and the gateway stops), else `retry`.
 */
function failedRun(
	context: HandlerContext,
	outcome: Extract<EventOutcome, { kind: "callback_failed" | "timed_out" }>,
	retry: NotificationResponse,
): NotificationResponse {
	const { attempts } = outcome;
	const { acknowledgeAfterAttempts } = context;
	const parked =
		acknowledgeAfterAttempts !== undefined && attempts !== undefined && attempts >= acknowledgeAfterAttempts;
	if (!parked) return retry;
	const description = `The callback failed ${attempts} times; the event is kept as failed for a replay.`;
	return { status: 200, body: JSON.stringify(acknowledge(description)) };
}
