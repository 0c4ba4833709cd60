import type { Attributes, Span } from "@opentelemetry/api";
import { InvalidNotificationError } from "../errors/invalid-notification-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { callHook } from "../internal/hooks.js";
import { KnownSecrets } from "../internal/redact.js";
import type { EventOutcome, StepWatcher } from "../notifications/claimed-event.js";
import type { NotificationResponse } from "../notifications/handler-types.js";
import { HttpRuleError } from "../notifications/http-rules.js";
import type { OpenedNotification } from "../notifications/verify.js";
import { findDrift } from "../schemas/drift.js";
import type { Logger } from "../transport/observer.js";
import { type DriftReport, driftAttributes, driftWarning, firstReports } from "./drift.js";
import { defineEventInstruments, type EventInstruments, RunSteps } from "./events.js";
import { ATTRIBUTES, EVENTS } from "./names.js";
import type { TelemetryProviders } from "./options.js";
import { errorType, recordError } from "./span-error.js";
import { type ActiveTelemetry, Telemetry } from "./telemetry.js";

/** The IPN handler's span name, and the source drift reports name. */
const OPERATION = "ipn.handle";
const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/**
 * Why a delivery was refused, as `merchant_gateway.refusal` says: its HTTP rule (`method`, `content_type`,
 * `size`, `body_timeout`, `request`), its signature (`signature`), its body or fields (`schema`), or an
 * unexpected error (`error`).
 */
export function refusalReason(error: unknown): string {
	if (error instanceof HttpRuleError) {
		const byStatus: Record<number, string> = { 405: "method", 415: "content_type", 413: "size", 408: "body_timeout" };
		return byStatus[error.httpStatus] ?? "request";
	}
	if (error instanceof SignatureVerificationError) return "signature";
	if (error instanceof InvalidNotificationError) return "schema";
	return "error";
}

/** One delivery's record: its span, its steps' spans, its metrics. */
export interface DeliveryRecord {
	/** Reads and verifies the body inside the `ipn.verify` step. */
	verifying<T>(verify: () => Promise<T>): Promise<T>;
	/** The verified event: its id, kind, status and signing version. */
	verified(opened: OpenedNotification): void;
	/** What the event runner tells of its steps; undefined while telemetry is off. */
	readonly watch: StepWatcher | undefined;
	/** Runs the merchant's callback with its step span active. */
	inCallback<T>(run: () => T): T;
	/** A drift first seen in this delivery. */
	drift(report: DriftReport): void;
	/** The response the delivery gets, and the outcome it came from; `joined` when it joined a run in flight. */
	finished(outcome: EventOutcome, response: NotificationResponse, joined: boolean): void;
}

const NO_RECORD: DeliveryRecord = {
	verifying: (verify) => verify(),
	verified: () => undefined,
	watch: undefined,
	inCallback: (run) => run(),
	drift: () => undefined,
	finished: () => undefined,
};

/** The IPN handler's telemetry: a span and metrics per delivery, and drift reports. */
export class HandlerTelemetry {
	readonly #telemetry: Telemetry<EventInstruments>;
	readonly #logger: Logger | undefined;

	/** Starts looking for `@opentelemetry/api` now, so that deliveries never wait for it. */
	constructor(providers: TelemetryProviders, logger: Logger | undefined) {
		this.#logger = logger;
		this.#telemetry = new Telemetry(providers, defineEventInstruments, (message) => this.#warn(message));
		this.#telemetry.active();
	}

	/**
	 * Starts the record of one delivery. A delivery never waits for `@opentelemetry/api` to load (its body
	 * timer runs from its arrival): one that arrives before the load has settled, a moment after the handler
	 * was made, is not recorded.
	 */
	start(method: string | undefined): DeliveryRecord {
		const active = this.#telemetry.active();
		if (active === null || active instanceof Promise) return NO_RECORD;
		return this.#record(active, method);
	}

	/** Reports the drift in a verified IPN, each kind once per process: the logger, the span, the counter. */
	drift(opened: OpenedNotification, record: DeliveryRecord): void {
		const drifts = findDrift(opened.schema.get(), opened.fields);
		if (drifts.length === 0) return;
		for (const report of firstReports(OPERATION, drifts)) {
			this.#warn(driftWarning(report));
			record.drift(report);
		}
	}

	#warn(message: string): void {
		const warn = this.#logger?.warn;
		if (warn !== undefined) callHook(warn.bind(this.#logger), message);
	}

	#record(active: ActiveTelemetry<EventInstruments>, method: string | undefined): DeliveryRecord {
		try {
			return new ActiveDeliveryRecord(active, method);
		} catch (error) {
			this.#warn(`Telemetry failed to start a span; the delivery goes on without it: ${errorType(error)}`);
			return NO_RECORD;
		}
	}
}

class ActiveDeliveryRecord implements DeliveryRecord {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #recording: boolean;
	readonly #event: Attributes = {};
	#fields: Record<string, unknown> | undefined;
	#steps: RunSteps | undefined;

	constructor(active: ActiveTelemetry<EventInstruments>, method: string | undefined) {
		this.#active = active;
		// The HTTP conventions' rule: a method outside the standard ones is `_OTHER` (the attribute stays bounded).
		const known = method !== undefined && HTTP_METHODS.has(method) ? method : "_OTHER";
		const attributes = { [ATTRIBUTES.httpMethod]: known, [ATTRIBUTES.operation]: OPERATION };
		this.#span = active.tracer.startSpan(OPERATION, { kind: active.api.SpanKind.SERVER, attributes });
		this.#recording = this.#span.isRecording();
	}

	get watch(): StepWatcher | undefined {
		return this.#steps?.watch;
	}

	async verifying<T>(verify: () => Promise<T>): Promise<T> {
		const { api, tracer } = this.#active;
		const parent = api.trace.setSpan(api.context.active(), this.#span);
		const span = tracer.startSpan("ipn.verify", {}, parent);
		try {
			return await verify();
		} catch (error) {
			if (span.isRecording()) recordError(api, span, error);
			throw error;
		} finally {
			span.end();
		}
	}

	verified(opened: OpenedNotification): void {
		const { event, fields } = opened;
		this.#fields = fields;
		this.#event[ATTRIBUTES.eventKind] = event.type;
		const steps = new RunSteps(this.#active, "ipn", this.#span, { ...this.#event }, () => this.#secrets());
		this.#steps = steps;
		if (!this.#recording) return;
		const resource = event.type === "transaction" ? event.transaction : event.refund;
		const attributes: Attributes = {
			[ATTRIBUTES.eventId]: event.eventId,
			[ATTRIBUTES.eventKind]: event.type,
			[ATTRIBUTES.status]: resource.status,
			[ATTRIBUTES.signVersion]: event.signVersion,
			[ATTRIBUTES.transactionId]: resource.transactionId,
		};
		if (event.type === "refund") attributes[ATTRIBUTES.refundId] = event.refund.refundId;
		this.#span.setAttributes(attributes);
	}

	inCallback<T>(run: () => T): T {
		return this.#steps === undefined ? run() : this.#steps.inCallback(run);
	}

	drift(report: DriftReport): void {
		const attributes = driftAttributes(report);
		try {
			if (this.#recording) this.#span.addEvent(EVENTS.drift, attributes);
			this.#active.instruments().drift.add(1, attributes);
		} catch {
			// A tracer or meter that throws must not change what the handler does.
		}
	}

	finished(outcome: EventOutcome, response: NotificationResponse, joined: boolean): void {
		try {
			this.#end(outcome, response, joined);
		} catch {
			// A tracer or meter that throws must not change what the handler does.
		}
	}

	#end(outcome: EventOutcome, response: NotificationResponse, joined: boolean): void {
		const { api } = this.#active;
		const error = "error" in outcome ? outcome.error : undefined;
		const point: Attributes = { ...this.#event, [ATTRIBUTES.outcome]: outcome.kind };
		if (outcome.kind === "refused") point[ATTRIBUTES.refusal] = refusalReason(outcome.error);
		if (error !== undefined) point[ATTRIBUTES.errorType] = errorType(error);
		if (this.#recording) {
			this.#span.setAttributes({
				...point,
				[ATTRIBUTES.statusCode]: response.status,
				[ATTRIBUTES.returnCode]: response.status === 200 ? "100" : String(response.status),
			});
			if (joined) this.#span.setAttribute(ATTRIBUTES.joined, true);
			// A server span is an error for its own failures (5xx), not for the requests it refuses.
			if (error !== undefined && response.status >= 500) recordError(api, this.#span, error, this.#secrets());
		}
		this.#span.end();
		this.#active.instruments().deliveries.add(1, point);
	}

	/** The event's personal data (a cardholder's name, metadata), kept out of exception messages. */
	#secrets(): KnownSecrets | undefined {
		return this.#fields && new KnownSecrets(this.#fields, { personal: true });
	}
}
