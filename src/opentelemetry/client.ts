import { type Attributes, context, SpanKind, trace } from "@opentelemetry/api";
import { redactForTelemetry } from "../internal/redact.js";
import type { CallStart, CallWatch, ClientOutcome } from "../resources/call-watch.js";
import type { ClientRetryEvent } from "../transport/observer.js";
import type { ActiveTelemetry } from "./active.js";
import { describeError } from "./described.js";
import type { ClientInstruments } from "./instruments.js";
import { ATTRIBUTES, EVENTS } from "./names.js";
import { RecordedSpan } from "./recorded.js";
import { idValue } from "./values.js";

const nothing = () => undefined;

/**
 * A client call recorded: a span and metric points. Attributes learnt along the call are kept and set once, as
 * the span ends; events (retries, drift, the exception) are added as they happen.
 */
export class RecordedCall extends RecordedSpan<ClientInstruments> implements CallWatch {
	readonly #operation: string;
	readonly #startedAt: number;
	readonly #attributes: Attributes = {};
	#fields: Record<string, unknown> | undefined;

	/** @throws what the tracer throws: the client then records nothing for this call. */
	constructor(active: ActiveTelemetry<ClientInstruments>, { endpoint, client }: CallStart) {
		const startedAt = performance.now();
		// What a sampler may decide on, given at the start as the HTTP conventions ask.
		const attributes: Attributes = {
			[ATTRIBUTES.httpMethod]: "POST",
			[ATTRIBUTES.urlTemplate]: endpoint.path,
			[ATTRIBUTES.urlFull]: client.baseUrl + endpoint.path,
			[ATTRIBUTES.serverAddress]: client.address,
			[ATTRIBUTES.serverPort]: client.port,
			[ATTRIBUTES.operation]: endpoint.operation,
			[ATTRIBUTES.signVersion]: client.signVersion,
		};
		super(active, endpoint.operation, { kind: SpanKind.CLIENT, attributes });
		this.#operation = endpoint.operation;
		this.#startedAt = startedAt;
	}

	during<T>(send: () => Promise<T>): Promise<T> {
		if (!this.recording) return send();
		return context.with(trace.setSpan(context.active(), this.span), send);
	}

	sending(fields: Record<string, unknown>): void {
		this.#fields = fields;
		if (!this.recording) return;
		if (typeof fields.orderRef === "string")
			this.#attributes[ATTRIBUTES.orderRef] = redactForTelemetry(fields.orderRef);
		if (typeof fields.transactionId === "string")
			this.#attributes[ATTRIBUTES.transactionId] = idValue(fields.transactionId);
		if (typeof fields.refundId === "string") this.#attributes[ATTRIBUTES.refundId] = idValue(fields.refundId);
	}

	attempt = nothing;
	responded = nothing;

	retried(event: ClientRetryEvent): void {
		if (!this.recording) return;
		const attributes = {
			[ATTRIBUTES.resendCount]: event.attempt - 1,
			[ATTRIBUTES.retryReason]: event.reason,
			[ATTRIBUTES.retryDelay]: event.delayMs,
		};
		try {
			this.span.addEvent(EVENTS.retry, attributes);
		} catch {
			// A tracer that throws must not fail a payment.
		}
	}

	exchanged(status: number | undefined, attempts: number): void {
		this.#attributes[ATTRIBUTES.retries] = Math.max(0, attempts - 1);
		if (status !== undefined) this.#attributes[ATTRIBUTES.statusCode] = status;
	}

	succeeded(result: unknown, outcome: ClientOutcome): void {
		const { transactionId, refundId } = (result ?? {}) as { transactionId?: unknown; refundId?: unknown };
		if (typeof transactionId === "string") this.#attributes[ATTRIBUTES.transactionId] = idValue(transactionId);
		if (typeof refundId === "string") this.#attributes[ATTRIBUTES.refundId] = idValue(refundId);
		this.#end(outcome, undefined);
	}

	failed(error: unknown, outcome: ClientOutcome): void {
		this.#end(outcome, error);
	}

	/** Ends the span and records the metric points; `error` when the call throws it. */
	#end(outcome: ClientOutcome, error: unknown): void {
		const seconds = (performance.now() - this.#startedAt) / 1000;
		try {
			const described = error === undefined ? undefined : describeError(error, this.#fields);
			if (this.recording) {
				this.#attributes[ATTRIBUTES.outcome] = outcome;
				this.span.setAttributes(this.#attributes);
				if (described !== undefined) this.recordError(described);
			}
			this.span.end();
			const attributes: Attributes = { [ATTRIBUTES.operation]: this.#operation, [ATTRIBUTES.outcome]: outcome };
			if (described !== undefined) attributes[ATTRIBUTES.errorType] = described.type;
			const { calls, duration } = this.active.instruments();
			calls.add(1, attributes);
			duration.record(seconds, attributes);
		} catch {
			// A tracer, meter or exporter that throws must not fail a payment.
		}
	}
}
