import type { Attributes, Counter, Histogram, Meter, Span } from "@opentelemetry/api";
import type { EndpointRow } from "../endpoints.js";
import { ConnectionError } from "../errors/connection-error.js";
import { GatewayRefusalError } from "../errors/gateway-refusal-error.js";
import { InvalidInputError } from "../errors/invalid-input-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { VerificationError } from "../errors/verification-error.js";
import { KnownSecrets, redactForTelemetry } from "../internal/redact.js";
import type { Drift } from "../schemas/drift.js";
import type { CardChargeOutcome, RefundApproval } from "../schemas/responses.js";
import type { SignVersion } from "../signing/seal.js";
import type { ClientRetryEvent, Observer } from "../transport/observer.js";
import type { OpenTelemetry } from "./api.js";
import { type DriftReport, driftAttributes, driftCounter, driftWarning, firstReports } from "./drift.js";
import { ATTRIBUTES, DURATION_BUCKETS, EVENTS, METRICS } from "./names.js";
import type { TelemetryProviders } from "./options.js";
import { errorType, recordError } from "./span-error.js";
import { type ActiveTelemetry, Telemetry } from "./telemetry.js";

/**
 * What a client call came to, as `merchant_gateway.outcome` says:
 * - `created`, `redirect`, `pending`: a create succeeded (a card charge that needs 3-D Secure is a
 *   `redirect`; a charge the gateway has not decided yet, or a refund held for approval, is `pending`);
 * - `retrieved`: a query answered;
 * - `refused`: the gateway responded with an error (GatewayRefusalError);
 * - `unknown`: a create may or may not have been processed (OutcomeUnknownError);
 * - `invalid_request`: the parameters or options were refused before anything was sent;
 * - `no_response`: no response came back (ConnectionError, TimeoutError);
 * - `invalid_response`: a response came back that could not be verified or read;
 * - `aborted`: the caller's signal ended the call;
 * - `failed`: anything else.
 */
export type ClientOutcome =
	| "created"
	| "redirect"
	| "pending"
	| "retrieved"
	| "refused"
	| "unknown"
	| "invalid_request"
	| "no_response"
	| "invalid_response"
	| "aborted"
	| "failed";

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

/** One call's record: its span and its metrics. */
export interface CallRecord {
	/** Runs the exchange with the gateway with the call's span active, so that HTTP spans nest under it. */
	during<T>(send: () => Promise<T>): Promise<T>;
	/** The request about to be sent (before sealing): its ids, and the values to keep out of error messages. */
	sending(fields: Record<string, unknown>): void;
	/** A query is about to be retried (bound: the transport calls it). */
	retried(event: ClientRetryEvent): void;
	/** How the exchange ended: the last response's status (none when no response came back), after how many attempts. */
	responded(status: number | undefined, attempts: number): void;
	/** A drift first seen in this call's response. */
	drift(report: DriftReport): void;
	/** The call returns `result`. */
	succeeded(result: unknown): void;
	/** The call throws `error`; `aborted` when the caller's signal had aborted. */
	failed(error: unknown, aborted: boolean): void;
}

/** The record of a call while telemetry is off. */
const NO_RECORD: CallRecord = {
	during: (send) => send(),
	sending: () => undefined,
	retried: () => undefined,
	responded: () => undefined,
	drift: () => undefined,
	succeeded: () => undefined,
	failed: () => undefined,
};

/** Where the client's calls go: `server.*` and the base of `url.full`. */
interface Server {
	baseUrl: string;
	address: string;
	port: number;
}

/** The client's telemetry: a span and metrics per call, and drift reports. */
export class ClientTelemetry {
	readonly #telemetry: Telemetry<ClientInstruments>;
	readonly #server: Server;
	readonly #signVersion: SignVersion;
	readonly #observer: Observer;
	/** The attributes every span of an endpoint's calls starts with: the same for each call of this client. */
	readonly #startAttributes = new Map<EndpointRow, Readonly<Attributes>>();

	constructor(providers: TelemetryProviders, baseUrl: string, signVersion: SignVersion, observer: Observer) {
		this.#telemetry = new Telemetry(providers, defineInstruments, (message) => observer.log("warn", message));
		const url = new URL(baseUrl);
		const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
		this.#server = { baseUrl, address: url.hostname.replace(/^\[|\]$/g, ""), port };
		this.#signVersion = signVersion;
		this.#observer = observer;
	}

	/** Starts the record of one call to `endpoint` (synchronously once `@opentelemetry/api` has been looked for). */
	start(endpoint: EndpointRow): CallRecord | Promise<CallRecord> {
		const active = this.#telemetry.active();
		if (active === null) return NO_RECORD;
		if (active instanceof Promise) return active.then((ready) => (ready ? this.#record(ready, endpoint) : NO_RECORD));
		return this.#record(active, endpoint);
	}

	/**
	 * Reports the drift in a response, each kind once per process: a warning on the logger, and an event on
	 * the call's span and the drift counter.
	 */
	drift(operation: string, drifts: readonly Drift[], record: CallRecord): void {
		for (const report of firstReports(operation, drifts)) {
			this.#observer.log("warn", driftWarning(report));
			record.drift(report);
		}
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

	#record(active: ActiveTelemetry<ClientInstruments>, endpoint: EndpointRow): CallRecord {
		try {
			return new ActiveCallRecord(active, endpoint, this.#spanAttributes(endpoint));
		} catch (error) {
			this.#observer.log("warn", `Telemetry failed to start a span; the call goes on without it: ${errorType(error)}`);
			return NO_RECORD;
		}
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
	#fields: Record<string, unknown> | undefined;

	/** @param attributes what a sampler may decide on, given at the start as the HTTP conventions ask. */
	constructor(active: ActiveTelemetry<ClientInstruments>, endpoint: EndpointRow, attributes: Attributes) {
		this.#active = active;
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
			this.#attributes[ATTRIBUTES.orderRef] = redactForTelemetry(fields.orderRef);
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
		const attributes = driftAttributes(report);
		try {
			if (this.#recording) this.#span.addEvent(EVENTS.drift, attributes);
			this.#active.instruments().drift.add(1, attributes);
		} catch {
			// A tracer or meter that throws must not fail a payment.
		}
	}

	succeeded(result: unknown): void {
		const { transactionId, refundId } = (result ?? {}) as { transactionId?: unknown; refundId?: unknown };
		if (typeof transactionId === "string") this.#attributes[ATTRIBUTES.transactionId] = transactionId;
		if (typeof refundId === "string") this.#attributes[ATTRIBUTES.refundId] = refundId;
		this.#end(successOutcome(this.#endpoint, result), undefined, undefined);
	}

	failed(error: unknown, aborted: boolean): void {
		this.#end(failureOutcome(error, aborted), errorType(error), error);
	}

	#end(outcome: ClientOutcome, type: string | undefined, error: unknown): void {
		const seconds = (performance.now() - this.#startedAt) / 1000;
		try {
			if (this.#recording) {
				this.#attributes[ATTRIBUTES.outcome] = outcome;
				this.#span.setAttributes(this.#attributes);
				if (type !== undefined) {
					const secrets = this.#fields && new KnownSecrets(this.#fields, { personal: true });
					recordError(this.#active.api, this.#span, error, secrets);
				}
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

function failureOutcome(error: unknown, aborted: boolean): ClientOutcome {
	if (error instanceof OutcomeUnknownError) return "unknown";
	if (aborted) return "aborted";
	if (error instanceof GatewayRefusalError) return "refused";
	if (error instanceof InvalidInputError) return "invalid_request";
	if (error instanceof ConnectionError) return "no_response";
	if (error instanceof VerificationError) return "invalid_response";
	return "failed";
}
