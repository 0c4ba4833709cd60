import type { Attributes, Span } from "@opentelemetry/api";
import type { EventOutcome, StepWatcher } from "../notifications/claimed-event.js";
import type { NotificationResponse } from "../notifications/handler-types.js";
import type { OpenedNotification } from "../notifications/verify.js";
import { ActiveTelemetry } from "./active.js";
import type { OpenTelemetry } from "./api.js";
import type { TelemetryRedaction } from "./described.js";
import type { DriftReport } from "./drift.js";
import { recordDrift } from "./drift-record.js";
import { defineEventInstruments, type EventInstruments, RunSteps } from "./events.js";
import type { DeliveryRecord, DeliveryRecorder, RecorderContext } from "./ipn.js";
import { ATTRIBUTES } from "./names.js";
import type { TelemetryProviders } from "./options.js";
import { recordError } from "./span-error.js";

// The IPN handler's recording code: loaded with @opentelemetry/api (ipn.ts), never without it.

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/** Makes a span and metric points per delivery, with the handler's tracer and instruments. */
export class ActiveDeliveryRecorder implements DeliveryRecorder {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #context: RecorderContext;

	constructor(api: OpenTelemetry, providers: TelemetryProviders, context: RecorderContext) {
		this.#active = new ActiveTelemetry(api, providers, defineEventInstruments);
		this.#context = context;
	}

	/** @throws what the tracer throws: the handler then records nothing for this delivery. */
	start(method: string | undefined): DeliveryRecord {
		return new ActiveDeliveryRecord(this.#active, method, this.#context);
	}
}

/**
 * A delivery recorded while telemetry is on. Attributes learnt along the way are kept and set once, as the span
 * ends (one call into the SDK instead of one per step); the steps' events are added as they happen.
 */
class ActiveDeliveryRecord implements DeliveryRecord {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #recording: boolean;
	readonly #event: Attributes = {};
	#verified: Attributes | undefined;
	readonly #operation: string;
	readonly #redaction: TelemetryRedaction;
	#fields: Record<string, unknown> | undefined;
	#steps: RunSteps | undefined;

	constructor(active: ActiveTelemetry<EventInstruments>, method: string | undefined, context: RecorderContext) {
		this.#active = active;
		this.#operation = context.operation;
		this.#redaction = context.redaction;
		const OPERATION = context.operation;
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
		const startedAt = performance.now();
		let error: unknown;
		try {
			return await verify();
		} catch (thrown) {
			error = thrown;
			throw thrown;
		} finally {
			if (this.#recording) {
				const event: Attributes = { [ATTRIBUTES.duration]: Math.round((performance.now() - startedAt) * 1000) / 1000 };
				if (error !== undefined) event[ATTRIBUTES.errorType] = this.#redaction.type(error);
				this.#span.addEvent("merchant_gateway.verify", event);
			}
		}
	}

	verified(opened: OpenedNotification): void {
		const { event, fields } = opened;
		this.#fields = fields;
		this.#event[ATTRIBUTES.eventKind] = event.type;
		const steps = new RunSteps(this.#active, "ipn", this.#span, { ...this.#event }, this.#redaction);
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
		this.#verified = attributes;
	}

	inCallback<T>(run: () => T): T {
		return this.#steps === undefined ? run() : this.#steps.inCallback(run);
	}

	drift(report: DriftReport): void {
		recordDrift(this.#span, () => this.#active.instruments().drift, report);
	}

	finished(outcome: EventOutcome, response: NotificationResponse, joined: boolean, refusal?: string): void {
		try {
			this.#end(outcome, response, joined, refusal);
		} catch {
			// A tracer or meter that throws must not change what the handler does.
		}
	}

	#end(outcome: EventOutcome, response: NotificationResponse, joined: boolean, refusal: string | undefined): void {
		const { api } = this.#active;
		const error = "error" in outcome ? outcome.error : undefined;
		const described = error === undefined ? undefined : this.#redaction.error(error, this.#fields);
		const point: Attributes = { ...this.#event, [ATTRIBUTES.outcome]: outcome.kind };
		if (refusal !== undefined) point[ATTRIBUTES.refusal] = refusal;
		if (described !== undefined) point[ATTRIBUTES.errorType] = described.type;
		if (this.#recording) {
			const attributes: Attributes = {
				...this.#verified,
				...point,
				[ATTRIBUTES.statusCode]: response.status,
				[ATTRIBUTES.returnCode]: response.status === 200 ? "100" : String(response.status),
			};
			if (joined) attributes[ATTRIBUTES.joined] = true;
			this.#span.setAttributes(attributes);
			// A server span is an error for its own failures (5xx), not for the requests it refuses.
			if (described !== undefined && response.status >= 500) recordError(api, this.#span, described);
		}
		this.#span.end();
		this.#active.instruments().deliveries.add(1, point);
	}
}
