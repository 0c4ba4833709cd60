import { ConfigurationError } from "../errors/configuration-error.js";
import { InvalidNotificationError } from "../errors/invalid-notification-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { toPublicKeys } from "../signing/keys.js";
import { type Acknowledgement, acknowledge, acknowledgeFailure } from "./acknowledge.js";
import { confirmClaim, newClaimToken, releaseClaim } from "./claims.js";
import type {
	NotificationContext,
	NotificationDelivery,
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
import { type ClaimResult, createMemoryStore } from "./store.js";
import { type NotificationEvent, verifyNotification } from "./verify.js";
import { deliveryOf, toResponse } from "./web-request.js";

function realTimer(onExpiry: () => void, delayMs: number): () => void {
	const timer = setTimeout(onExpiry, delayMs);
	// An IPN still waiting should not keep a process alive that is otherwise done.
	(timer as { unref?: () => void }).unref?.();
	return () => clearTimeout(timer);
}

function failure(status: number, description: string): NotificationResponse {
	const body: Acknowledgement = acknowledgeFailure(description, String(status));
	return { status, body: JSON.stringify(body) };
}

function checkOptions(options: NotificationHandlerOptions): void {
	const issues: { field: string; message: string }[] = [];
	if (typeof options?.onTransaction !== "function")
		issues.push({ field: "onTransaction", message: "must be a function" });
	if (typeof options?.onRefund !== "function") issues.push({ field: "onRefund", message: "must be a function" });
	const limit = options?.maxBodyBytes;
	if (limit !== undefined && (!Number.isSafeInteger(limit) || limit <= 0))
		issues.push({ field: "maxBodyBytes", message: "must be a positive integer" });
	for (const field of ["leaseMs", "callbackTimeoutMs", "bodyTimeoutMs"] as const) {
		const ms = options?.[field];
		if (ms === undefined || (Number.isSafeInteger(ms) && ms > 0)) continue;
		issues.push({ field, message: "must be a positive integer" });
	}
	const startTimer = options?.startTimer;
	if (startTimer !== undefined && typeof startTimer !== "function") {
		issues.push({ field: "startTimer", message: "must be a function" });
	}
	if (options?.signedString !== undefined && typeof options.signedString !== "function") {
		issues.push({ field: "signedString", message: "must be a function" });
	}
	const store = options?.store;
	if (
		store !== undefined &&
		(typeof store?.claim !== "function" || typeof store.confirm !== "function" || typeof store.release !== "function")
	) {
		issues.push({ field: "store", message: "must have claim, confirm and release methods" });
	}
	if (issues.length > 0) throw new ConfigurationError(issues, "notification handler options");
}

/**
 * Makes the IPN route: verifies each delivery, hands verified, typed events to
 * `onTransaction` / `onRefund` once per event identity, and responds to the
 * gateway:
 *
 * - 200 + returnCode "100" only after your callback resolved (or for a
 *   duplicate of an event already processed);
 * - 500 + a non-100 code when your callback or the store threw (the gateway
 *   retries; the claim is released so the retry runs your callback again);
 * - 503 + a non-100 code when your callback has not settled after
 *   `callbackTimeoutMs` (or its lease ended first): the gateway retries, and
 *   the callback's `signal` aborts;
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
 * @throws ConfigurationError for bad options; InvalidKeyError for a bad key.
 */
export function createNotificationHandler(options: NotificationHandlerOptions): NotificationHandler {
	checkOptions(options);
	const publicKeys = toPublicKeys(options.gatewayPublicKey);
	const verifyOptions = {
		gatewayPublicKey: publicKeys,
		acceptVersions: options.acceptVersions,
		signedString: options.signedString,
	};
	const store = options.store ?? createMemoryStore();
	const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
	const leaseMs = options.leaseMs ?? 60_000;
	const waitMs = Math.min(options.callbackTimeoutMs ?? 25_000, leaseMs);
	const startTimer = options.startTimer ?? realTimer;
	const bodyTimeout: BodyTimeout = { ms: options.bodyTimeoutMs ?? 10_000, start: startTimer };
	const { onTransaction, onRefund, onError } = options;
	// Made here, not at module load: acknowledge() runs the redaction patterns, and importing the SDK should not.
	const processed: NotificationResponse = { status: 200, body: JSON.stringify(acknowledge("Processed.")) };
	const duplicate: NotificationResponse = { status: 200, body: JSON.stringify(acknowledge("Already processed.")) };
	const stillRunning = failure(503, "The notification is still being processed; it will be retried.");
	/** Events being processed in this process: later deliveries join them until the handler stops waiting. */
	const inFlight = new Map<string, Promise<NotificationResponse>>();

	function report(error: unknown, status: number, eventId: string | undefined): void {
		if (!onError) return;
		try {
			onError(error, { status, eventId });
		} catch {
			// A failing logger must not change the response.
		}
	}

	function refuse(error: unknown, eventId?: string): NotificationResponse {
		let response: NotificationResponse;
		const status = ruleStatus(error);
		if (status !== undefined) response = failure(status, (error as Error).message);
		else if (error instanceof SignatureVerificationError) response = failure(401, error.message);
		else if (error instanceof InvalidNotificationError) response = failure(400, error.message);
		else response = failure(500, "The notification could not be processed; it will be retried.");
		report(error, response.status, eventId);
		return response;
	}

	/** Runs the callback for a claim taken by this delivery (or awaits an asynchronous store's answer first). */
	async function processClaim(event: NotificationEvent, claimed: ClaimResult | Promise<ClaimResult>, token: string) {
		const { eventId } = event;
		let claim: ClaimResult;
		try {
			claim = typeof claimed === "string" ? claimed : await claimed;
		} catch (error) {
			return refuse(error, eventId);
		}
		if (claim === "processed") return duplicate;
		if (claim === "in_progress") {
			const response = failure(409, "This event is being processed by another worker; retry later.");
			report(
				new InvalidNotificationError("The event is being processed elsewhere (its claim has not expired)."),
				409,
				eventId,
			);
			return response;
		}
		return runCallback(event, token);
	}

	async function succeeded(eventId: string, token: string): Promise<NotificationResponse> {
		// The work is done: acknowledging avoids a retry that would run it again. A store that fails to
		// confirm (only a rare delivery after the lease ends could repeat it) or a lost lease is reported.
		const problem = await confirmClaim(store, eventId, token, leaseMs);
		if (problem !== undefined) report(problem, 200, eventId);
		return processed;
	}

	async function failed(eventId: string, token: string, error: unknown): Promise<NotificationResponse> {
		const problem = await releaseClaim(store, eventId, token);
		if (problem !== undefined) report(problem, 500, eventId);
		return refuse(error, eventId);
	}

	/** The callback's outcome as a response, or `stillRunning` once `waitMs` passed without one. */
	function runCallback(event: NotificationEvent, token: string): Promise<NotificationResponse> {
		const { eventId } = event;
		const controller = new AbortController();
		const context: NotificationContext = { eventId, signVersion: event.signVersion, signal: controller.signal };
		let result: unknown;
		try {
			if (event.type === "transaction") result = onTransaction(event.transaction, context);
			else result = onRefund(event.refund, context);
		} catch (error) {
			return failed(eventId, token, error);
		}
		if (typeof (result as PromiseLike<unknown> | undefined)?.then !== "function") return succeeded(eventId, token);
		return new Promise<NotificationResponse>((resolve) => {
			let waiting = true;
			const cancel = startTimer(() => {
				waiting = false;
				const message = `The callback did not settle within ${waitMs} ms; the event will be delivered again.`;
				const reason = new DOMException(message, "TimeoutError");
				controller.abort(reason);
				report(reason, 503, eventId);
				resolve(stillRunning);
			}, waitMs);
			(result as PromiseLike<unknown>).then(
				() => {
					cancel();
					// Late or not, the work is done: the event is confirmed either way.
					const response = succeeded(eventId, token);
					if (waiting) resolve(response);
				},
				(error: unknown) => {
					cancel();
					if (waiting) resolve(failed(eventId, token, error));
					// Too late to release: the claim may be another delivery's by now. It lapses by itself.
					else report(error, 503, eventId);
				},
			);
		});
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

	function verifyBody(body: unknown): NotificationEvent {
		if (body === "" || (body instanceof Uint8Array && body.length === 0) || body === undefined || body === null) {
			throw new InvalidNotificationError("The body is empty.", "body");
		}
		return verifyNotification(body, verifyOptions);
	}

	function forget(eventId: string, run: Promise<NotificationResponse>): void {
		if (inFlight.get(eventId) === run) inFlight.delete(eventId);
	}

	async function handle(delivery: NotificationDelivery): Promise<NotificationResponse> {
		let event: NotificationEvent;
		try {
			checkHead(delivery);
			event = verifyBody(await delivery.readBody(maxBodyBytes, bodyTimeout));
		} catch (error) {
			const response = refuse(error);
			// The rest of the body was not read: the connection cannot carry another request.
			if (response.status === 413 || response.status === 408) response.closeConnection = true;
			if (response.status === 405) response.allow = "POST";
			return response;
		}
		const { eventId } = event;
		const running = inFlight.get(eventId);
		if (running) return running;
		let claimed: ClaimResult | Promise<ClaimResult>;
		const token = newClaimToken();
		try {
			claimed = store.claim(eventId, leaseMs, token);
		} catch (error) {
			return refuse(error, eventId);
		}
		// A duplicate seen by a synchronous store (the memory store) needs no in-flight entry: nothing runs for it.
		if (claimed === "processed") return duplicate;
		// Registered before any await, so a concurrent delivery of this event joins this run instead of claiming again.
		const run = processClaim(event, claimed, token);
		inFlight.set(eventId, run);
		try {
			return await run;
		} finally {
			forget(eventId, run);
		}
	}

	const handler = async (request: Request) => toResponse(await handle(deliveryOf(request)));
	return Object.assign(handler, { handle });
}
