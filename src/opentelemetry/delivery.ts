import { type Attributes, type Span, SpanKind } from "@opentelemetry/api";
import type { EventOutcome, StepWatcher } from "../notifications/claims/claimed-event.js";
import type { DeliveryStart, DeliveryWatch, RefusalReason } from "../notifications/handler/delivery-watch.js";
import type { NotificationResponse } from "../notifications/http/exchange.js";
import type { OpenedNotification } from "../notifications/message/verify.js";
import type { DriftReport } from "../schemas/drift-reports.js";
import { ActiveTelemetry, type OpenTelemetryOptions } from "./active.js";
import { describeError, errorType } from "./described.js";
import { recordDrift } from "./drift-record.js";
import { ATTRIBUTES } from "./names.js";
import { recordError } from "./span-error.js";
import { defineEventInstruments, type EventInstruments, RunSteps } from "./steps.js";
import { eventAttributes } from "./values.js";

/** The IPN handler's span name. */
const OPERATION = "ipn.handle";
const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/** The deliveries' subscriber: a span, its step events and metric points per delivery. */
export function recordDeliveries(providers: OpenTelemetryOptions): (start: DeliveryStart) => DeliveryWatch {
	const active = new ActiveTelemetry(providers, defineEventInstruments);
	return (start) => new RecordedDelivery(active, start.method);
}

/**
 * A delivery recorded. Attributes learnt along the way are kept and set once, as the span ends (one call into
 * the SDK instead of one per step); the steps' events are added as they happen.
 */
class RecordedDelivery implements DeliveryWatch {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #recording: boolean;
	readonly #event: Attributes = {};
	#verified: Attributes | undefined;
	#fields: Record<string, unknown> | undefined;
	#steps: RunSteps | undefined;
	/** When the body began being read and verified, until that step's event is added (recording spans only). */
	#verifyingSince: number | undefined;

	/** @throws what the tracer throws: the handler then records nothing for this delivery. */
	constructor(active: ActiveTelemetry<EventInstruments>, method: string | undefined) {
		this.#active = active;
		// The HTTP conventions' rule: a method outside the standard ones is `_OTHER` (the attribute stays bounded).
		const known = method !== undefined && HTTP_METHODS.has(method) ? method : "_OTHER";
		const attributes = { [ATTRIBUTES.httpMethod]: known, [ATTRIBUTES.operation]: OPERATION };
		this.#span = active.tracer.startSpan(OPERATION, { kind: SpanKind.SERVER, attributes });
		this.#recording = this.#span.isRecording();
	}

	get steps(): StepWatcher | undefined {
		return this.#steps?.watch;
	}

	verifying(): void {
		if (this.#recording) this.#verifyingSince = performance.now();
	}

	/** The verify step's event, once: when the body is verified, or refused after it began being read. */
	#verifyEnded(error: unknown): void {
		const since = this.#verifyingSince;
		if (since === undefined) return;
		this.#verifyingSince = undefined;
		const event: Attributes = { [ATTRIBUTES.duration]: Math.round((performance.now() - since) * 1000) / 1000 };
		if (error !== undefined) event[ATTRIBUTES.errorType] = errorType(error);
		this.#span.addEvent("merchant_gateway.verify", event);
	}

	verified(opened: OpenedNotification): void {
		this.#verifyEnded(undefined);
		const { event, fields } = opened;
		this.#fields = fields;
		this.#event[ATTRIBUTES.eventKind] = event.type;
		this.#steps = new RunSteps(this.#active, "ipn", this.#span, { ...this.#event });
		if (this.#recording) this.#verified = eventAttributes(event);
	}

	inCallback<T>(run: () => T): T {
		return this.#steps === undefined ? run() : this.#steps.inCallback(run);
	}

	drift(report: DriftReport): void {
		recordDrift(this.#span, () => this.#active.instruments().drift, report);
	}

	finished(
		outcome: EventOutcome,
		response: NotificationResponse,
		joined: boolean,
		refusal: RefusalReason | undefined,
	): void {
		try {
			this.#end(outcome, response, joined, refusal);
		} catch {
			// A tracer or meter that throws must not change what the handler does.
		}
	}

	#end(outcome: EventOutcome, response: NotificationResponse, joined: boolean, refusal: RefusalReason | undefined) {
		const error = "error" in outcome ? outcome.error : undefined;
		this.#verifyEnded(error);
		const described = error === undefined ? undefined : describeError(error, this.#fields);
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
			if (described !== undefined && response.status >= 500) recordError(this.#span, described);
		}
		this.#span.end();
		this.#active.instruments().deliveries.add(1, point);
	}
}
