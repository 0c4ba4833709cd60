import { type Attributes, SpanKind } from "@opentelemetry/api";
import type { EventOutcome } from "../notifications/claims/claimed-event.js";
import {
	type DeliveryStart,
	type DeliveryWatch,
	IPN_OPERATION,
	type RefusalReason,
} from "../notifications/handler/delivery-watch.js";
import type { NotificationResponse } from "../notifications/http/exchange.js";
import type { OpenedNotification } from "../notifications/message/verify.js";
import type { ActiveTelemetry } from "./active.js";
import { describeError } from "./described.js";
import type { EventInstruments } from "./instruments.js";
import { ATTRIBUTES } from "./names.js";
import { RecordedRun } from "./run.js";
import { eventAttributes } from "./values.js";

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);

/**
 * A delivery recorded: a span, its step events and metric points. Attributes learnt along the way are kept and
 * set once, as the span ends (one call into the SDK instead of one per step); the steps' events are added as
 * they happen.
 */
export class RecordedDelivery extends RecordedRun implements DeliveryWatch {
	#verified: Attributes | undefined;
	#fields: Record<string, unknown> | undefined;
	/** When the body began being read and verified, until that step's event is added (recording spans only). */
	#verifyingSince: number | undefined;

	/** @throws what the tracer throws: the handler then records nothing for this delivery. */
	constructor(active: ActiveTelemetry<EventInstruments>, { method }: DeliveryStart) {
		// The HTTP conventions' rule: a method outside the standard ones is `_OTHER` (the attribute stays bounded).
		const known = method !== undefined && HTTP_METHODS.has(method) ? method : "_OTHER";
		const attributes = { [ATTRIBUTES.httpMethod]: known, [ATTRIBUTES.operation]: IPN_OPERATION };
		super(active, "ipn", IPN_OPERATION, { kind: SpanKind.SERVER, attributes });
	}

	verifying(): void {
		if (this.recording) this.#verifyingSince = performance.now();
	}

	/** The verify step's event, once: when the body is verified, or refused after it began being read. */
	#verifyEnded(error: unknown): void {
		const since = this.#verifyingSince;
		if (since === undefined) return;
		this.#verifyingSince = undefined;
		this.stepEnded("verify", since, error);
	}

	verified(opened: OpenedNotification): void {
		this.#verifyEnded(undefined);
		const { event, fields } = opened;
		this.#fields = fields;
		this.recordSteps(event.type);
		if (this.recording) this.#verified = eventAttributes(event);
	}

	finished(
		outcome: EventOutcome,
		response: NotificationResponse,
		joined: boolean,
		refusal: RefusalReason | undefined,
	): void {
		try {
			const error = "error" in outcome ? outcome.error : undefined;
			this.#verifyEnded(error);
			const described = error === undefined ? undefined : describeError(error, this.#fields);
			const point = this.point(outcome.kind, described);
			if (refusal !== undefined) point[ATTRIBUTES.refusal] = refusal;
			if (this.recording) {
				const attributes: Attributes = {
					...this.#verified,
					...point,
					[ATTRIBUTES.statusCode]: response.status,
					[ATTRIBUTES.returnCode]: response.status === 200 ? "100" : String(response.status),
				};
				if (joined) attributes[ATTRIBUTES.joined] = true;
				this.span.setAttributes(attributes);
				// A server span is an error for its own failures (5xx), not for the requests it refuses.
				if (described !== undefined && response.status >= 500) this.recordError(described);
			}
			this.end("deliveries", point);
		} catch {
			// A tracer or meter that throws must not change what the handler does.
		}
	}
}
