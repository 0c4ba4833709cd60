import type { EndpointRow } from "../endpoints.js";
import { ConnectionError } from "../errors/connection-error.js";
import { GatewayRefusalError } from "../errors/gateway-refusal-error.js";
import { InvalidInputError } from "../errors/invalid-input-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { VerificationError } from "../errors/verification-error.js";
import type { Drift } from "../schemas/drift.js";
import type { SignVersion } from "../signing/seal.js";
import type { ClientRetryEvent, Observer } from "../transport/observer.js";
import type { OpenTelemetry } from "./api.js";
import { errorType, type TelemetryRedaction, telemetryRedaction } from "./described.js";
import { type DriftReport, driftWarning, firstReports } from "./drift.js";
import type { TelemetryProviders } from "./options.js";
import { Telemetry } from "./telemetry.js";

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
export const NO_RECORD: CallRecord = {
	during: (send) => send(),
	sending: () => undefined,
	retried: () => undefined,
	responded: () => undefined,
	drift: () => undefined,
	succeeded: () => undefined,
	failed: () => undefined,
};

/** Where the client's calls go: `server.*` and the base of `url.full`. */
export interface Server {
	baseUrl: string;
	address: string;
	port: number;
}

/** What the recorder module is given: what to redact with, and how an error maps to an outcome. */
export interface RecorderContext {
	redaction: TelemetryRedaction;
	outcomeOf(error: unknown, aborted: boolean): ClientOutcome;
}

/** Makes the records of the client's calls (the recorder module, loaded with `@opentelemetry/api`). */
export interface ClientRecorder {
	start(endpoint: EndpointRow): CallRecord;
}

/** The client's telemetry: a span and metrics per call, and drift reports. */
export class ClientTelemetry {
	readonly #telemetry: Telemetry<ClientRecorder>;
	readonly #observer: Observer;

	constructor(providers: TelemetryProviders, baseUrl: string, signVersion: SignVersion, observer: Observer) {
		const url = new URL(baseUrl);
		const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
		const server: Server = { baseUrl, address: url.hostname.replace(/^\[|\]$/g, ""), port };
		const warn = (message: string) => observer.log("warn", message);
		const load = async () => {
			const { ActiveClientRecorder } = await import("./client-recorder.js");
			const context: RecorderContext = { redaction: telemetryRedaction, outcomeOf: failureOutcome };
			return (api: OpenTelemetry, given: TelemetryProviders) =>
				new ActiveClientRecorder(api, given, server, signVersion, context);
		};
		this.#telemetry = new Telemetry(providers, load, warn);
		this.#observer = observer;
	}

	/** Starts the record of one call to `endpoint` (synchronously once telemetry has been looked for). */
	start(endpoint: EndpointRow): CallRecord | Promise<CallRecord> {
		const recorder = this.#telemetry.active();
		if (recorder === null) return NO_RECORD;
		if (recorder instanceof Promise)
			return recorder.then((ready) => (ready ? this.#start(ready, endpoint) : NO_RECORD));
		return this.#start(recorder, endpoint);
	}

	#start(recorder: ClientRecorder, endpoint: EndpointRow): CallRecord {
		try {
			return recorder.start(endpoint);
		} catch (error) {
			this.#observer.log("warn", `Telemetry failed to start a span; the call goes on without it: ${errorType(error)}`);
			return NO_RECORD;
		}
	}

	/**
	 * Reports the drift in a response, each kind once per process: a warning on the logger, and an event on
	 * the call's span and the drift counter.
	 */
	drift(operation: string, drifts: readonly Drift[], record: CallRecord): void {
		for (const report of firstReports(operation, drifts, telemetryRedaction.text)) {
			this.#observer.log("warn", driftWarning(report));
			record.drift(report);
		}
	}
}

/** A failed call's outcome, by the error's branch of the SDK's error tree. */
function failureOutcome(error: unknown, aborted: boolean): ClientOutcome {
	if (error instanceof OutcomeUnknownError) return "unknown";
	if (aborted) return "aborted";
	if (error instanceof GatewayRefusalError) return "refused";
	if (error instanceof InvalidInputError) return "invalid_request";
	if (error instanceof ConnectionError) return "no_response";
	if (error instanceof VerificationError) return "invalid_response";
	return "failed";
}
