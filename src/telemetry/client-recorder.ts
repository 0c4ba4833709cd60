import type { Attributes, Counter, Histogram, Meter, Span } from "@opentelemetry/api";
import type { EndpointRow } from "../endpoints.js";
import type { CardChargeOutcome, RefundApproval } from "../schemas/responses.js";
import type { SignVersion } from "../signing/seal.js";
import type { ClientRetryEvent } from "../transport/observer.js";
import { ActiveTelemetry } from "./active.js";
import type { OpenTelemetry } from "./api.js";
import type { CallRecord, ClientOutcome, ClientRecorder, RecorderContext, Server } from "./client.js";
import type { DriftReport } from "./drift.js";
import { driftCounter, recordDrift } from "./drift-record.js";
import { ATTRIBUTES, DURATION_BUCKETS, EVENTS, METRICS } from "./names.js";
import type { TelemetryProviders } from "./options.js";
import { recordError } from "./span-error.js";

// The client's recording code: loaded with @opentelemetry/api (client.ts), never without it.

/** The client's metrics. */
interface ClientInstruments {
	calls: Counter;
	duration: Histogram;
	drift: Counter;
}

function defineInstruments(meter: Meter, api: OpenTelemetry): ClientInstruments {
	return {
		calls: meter.createCounter(METRICS.clientCalls, {
			unit: "{call}",
			description: "Calls to the gateway, by operation and outcome.",
			valueType: api.ValueType.INT,
		}),
		duration: meter.createHistogram(METRICS.clientCallDuration, {
			unit: "s",
			description: "Duration of calls to the gateway (validation, signing, every attempt, verification).",
			advice: { explicitBucketBoundaries: DURATION_BUCKETS },
		}),
		drift: driftCounter(meter, api),
	};
}

/** Makes a span and metric points per call, with the client's tracer and instruments. */
export class ActiveClientRecorder implements ClientRecorder {
	readonly #active: ActiveTelemetry<ClientInstruments>;
	readonly #server: Server;
	readonly #signVersion: SignVersion;
	readonly #context: RecorderContext;
	/** The attributes every span of an endpoint's calls starts with: the same for each call of this client. */
	readonly #startAttributes = new Map<EndpointRow, Readonly<Attributes>>();

	constructor(
		api: OpenTelemetry,
		providers: TelemetryProviders,
		server: Server,
		signVersion: SignVersion,
		context: RecorderContext,
	) {
		this.#active = new ActiveTelemetry(api, providers, defineInstruments);
		this.#server = server;
		this.#signVersion = signVersion;
		this.#context = context;
	}

	/** @throws what the tracer throws: the client then records nothing for this call. */
	start(endpoint: EndpointRow): CallRecord {
		return new ActiveCallRecord(this.#active, endpoint, this.#spanAttributes(endpoint), this.#context);
	}

	/** The span's first attributes, as a fresh object (a sampler or an SDK may add to it). */
	#spanAttributes(endpoint: EndpointRow): Attributes {
		let attributes = this.#startAttributes.get(endpoint);
		if (attributes === undefined) {
			const server = this.#server;
			attributes = {
				[ATTRIBUTES.httpMethod]: "POST",
				[ATTRIBUTES.urlTemplate]: endpoint.path,
				[ATTRIBUTES.urlFull]: server.baseUrl + endpoint.path,
				[ATTRIBUTES.serverAddress]: server.address,
				[ATTRIBUTES.serverPort]: server.port,
				[ATTRIBUTES.operation]: endpoint.operation,
				[ATTRIBUTES.signVersion]: this.#signVersion,
			};
			this.#startAttributes.set(endpoint, attributes);
		}
		return { ...attributes };
	}
}

/**
 * A call recorded while telemetry is on. Attributes learnt along the call are kept and set once, as the
 * span ends; events (retries, drift, the exception) are added as they happen.
 */
class ActiveCallRecord implements CallRecord {
	readonly #active: ActiveTelemetry<ClientInstruments>;
	readonly #endpoint: EndpointRow;
	readonly #span: Span;
	readonly #recording: boolean;
	readonly #startedAt = performance.now();
	readonly #attributes: Attributes = {};
	readonly #context: RecorderContext;
	#fields: Record<string, unknown> | undefined;

	/** @param attributes what a sampler may decide on, given at the start as the HTTP conventions ask. */
	constructor(
		active: ActiveTelemetry<ClientInstruments>,
		endpoint: EndpointRow,
		attributes: Attributes,
		context: RecorderContext,
	) {
		this.#active = active;
		this.#context = context;
		this.#endpoint = endpoint;
		this.#span = active.tracer.startSpan(endpoint.operation, { kind: active.api.SpanKind.CLIENT, attributes });
		this.#recording = this.#span.isRecording();
	}

	during<T>(send: () => Promise<T>): Promise<T> {
		if (!this.#recording) return send();
		const { context, trace } = this.#active.api;
		return context.with(trace.setSpan(context.active(), this.#span), send);
	}

	sending(fields: Record<string, unknown>): void {
		this.#fields = fields;
		if (!this.#recording) return;
		if (typeof fields.orderRef === "string")
			this.#attributes[ATTRIBUTES.orderRef] = this.#context.redaction.text(fields.orderRef);
		if (typeof fields.transactionId === "string") this.#attributes[ATTRIBUTES.transactionId] = fields.transactionId;
		if (typeof fields.refundId === "string") this.#attributes[ATTRIBUTES.refundId] = fields.refundId;
	}

	retried = (event: ClientRetryEvent): void => {
		if (!this.#recording) return;
		const attributes = {
			[ATTRIBUTES.resendCount]: event.attempt - 1,
			[ATTRIBUTES.retryReason]: event.reason,
			[ATTRIBUTES.retryDelay]: event.delayMs,
		};
		try {
			this.#span.addEvent(EVENTS.retry, attributes);
		} catch {
			// A tracer that throws must not fail a payment.
		}
	};

	responded(status: number | undefined, attempts: number): void {
		this.#attributes[ATTRIBUTES.retries] = Math.max(0, attempts - 1);
		if (status !== undefined) this.#attributes[ATTRIBUTES.statusCode] = status;
	}

	drift(report: DriftReport): void {
		recordDrift(this.#span, () => this.#active.instruments().drift, report);
	}

	succeeded(result: unknown): void {
		const { transactionId, refundId } = (result ?? {}) as { transactionId?: unknown; refundId?: unknown };
		if (typeof transactionId === "string") this.#attributes[ATTRIBUTES.transactionId] = transactionId;
		if (typeof refundId === "string") this.#attributes[ATTRIBUTES.refundId] = refundId;
		this.#end(successOutcome(this.#endpoint, result), undefined);
	}

	failed(error: unknown, aborted: boolean): void {
		this.#end(this.#context.outcomeOf(error, aborted), error);
	}

	/** Ends the span and records the metric points; `error` when the call throws it. */
	#end(outcome: ClientOutcome, error: unknown): void {
		const seconds = (performance.now() - this.#startedAt) / 1000;
		try {
			const described = error === undefined ? undefined : this.#context.redaction.error(error, this.#fields);
			const type = described?.type;
			if (this.#recording) {
				this.#attributes[ATTRIBUTES.outcome] = outcome;
				this.#span.setAttributes(this.#attributes);
				if (described !== undefined) recordError(this.#active.api, this.#span, described);
			}
			this.#span.end();
			const attributes: Attributes = {
				[ATTRIBUTES.operation]: this.#endpoint.operation,
				[ATTRIBUTES.outcome]: outcome,
			};
			if (type !== undefined) attributes[ATTRIBUTES.errorType] = type;
			const { calls, duration } = this.#active.instruments();
			calls.add(1, attributes);
			duration.record(seconds, attributes);
		} catch {
			// A tracer, meter or exporter that throws must not fail a payment.
		}
	}
}

/** A successful call's outcome, read from the public result (a card charge's `outcome`, a refund's `approval`). */
function successOutcome(endpoint: EndpointRow, result: unknown): ClientOutcome {
	if (endpoint.kind === "query") return "retrieved";
	const { outcome, approval } = (result ?? {}) as { outcome?: CardChargeOutcome; approval?: RefundApproval };
	if (outcome === "redirect") return "redirect";
	if (outcome === "pending" || approval === "pending_approval") return "pending";
	return "created";
}
