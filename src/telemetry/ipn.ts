import { InvalidNotificationError } from "../errors/invalid-notification-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { callHook } from "../internal/hooks.js";
import type { EventOutcome, StepWatcher } from "../notifications/claimed-event.js";
import type { NotificationResponse } from "../notifications/handler-types.js";
import { HttpRuleError } from "../notifications/http-rules.js";
import type { OpenedNotification } from "../notifications/verify.js";
import type { Logger } from "../transport/observer.js";
import type { OpenTelemetry } from "./api.js";
import { errorType, type TelemetryRedaction, telemetryRedaction } from "./described.js";
import type { DriftReport } from "./drift.js";
import type { TelemetryProviders } from "./options.js";
import { Telemetry } from "./telemetry.js";

/** The IPN handler's span name, and the source drift reports name. */
const IPN_OPERATION = "ipn.handle";

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

/** What the recorder module is given: the span's name, and what to redact with. */
export interface RecorderContext {
	operation: string;
	redaction: TelemetryRedaction;
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
	/**
	 * The response the delivery gets, and the outcome it came from; `joined` when it joined a run in flight,
	 * `refusal` why it was refused ({@link refusalReason}).
	 */
	finished(outcome: EventOutcome, response: NotificationResponse, joined: boolean, refusal?: string): void;
}

export const NO_RECORD: DeliveryRecord = {
	verifying: (verify) => verify(),
	verified: () => undefined,
	watch: undefined,
	inCallback: (run) => run(),
	drift: () => undefined,
	finished: () => undefined,
};

/** Makes the records of deliveries (the recorder module, loaded with `@opentelemetry/api`). */
export interface DeliveryRecorder {
	start(method: string | undefined): DeliveryRecord;
}

/** The IPN handler's telemetry: a span and metrics per delivery, and drift reports. */
export class HandlerTelemetry {
	readonly #telemetry: Telemetry<DeliveryRecorder>;
	readonly #logger: Logger | undefined;
	/** The drift check, once loaded: only when a logger or telemetry listens. */
	#drift: ((opened: OpenedNotification, record: DeliveryRecord) => void) | undefined;

	/** Starts looking for `@opentelemetry/api` now, so that deliveries never wait for it. */
	constructor(providers: TelemetryProviders, logger: Logger | undefined) {
		this.#logger = logger;
		const warn = (message: string) => this.#warn(message);
		const load = async () => {
			const { ActiveDeliveryRecorder } = await import("./ipn-recorder.js");
			const context: RecorderContext = { operation: IPN_OPERATION, redaction: telemetryRedaction };
			return (api: OpenTelemetry, given: TelemetryProviders) => new ActiveDeliveryRecorder(api, given, context);
		};
		this.#telemetry = new Telemetry(providers, load, warn);
		Promise.resolve(this.#telemetry.active())
			.then(async (recorder) => {
				if (recorder === null && logger === undefined) return;
				const { ipnDrift } = await import("./ipn-drift.js");
				this.#drift = ipnDrift(IPN_OPERATION, telemetryRedaction, warn);
			})
			.catch(() => undefined);
	}

	/**
	 * Starts the record of one delivery. A delivery never waits for telemetry to load (its body timer runs
	 * from its arrival): one that arrives before the load has settled, a moment after the handler was made,
	 * is not recorded.
	 */
	start(method: string | undefined): DeliveryRecord {
		const recorder = this.#telemetry.active();
		if (recorder === null || recorder instanceof Promise) return NO_RECORD;
		try {
			return recorder.start(method);
		} catch (error) {
			this.#warn(`Telemetry failed to start a span; the delivery goes on without it: ${errorType(error)}`);
			return NO_RECORD;
		}
	}

	/**
	 * Reports the drift in a verified IPN, each kind once per process: the logger, the span, the counter. Like
	 * spans, it starts a moment after the handler was made (its code loads only when something listens).
	 */
	drift(opened: OpenedNotification, record: DeliveryRecord): void {
		this.#drift?.(opened, record);
	}

	#warn(message: string): void {
		const warn = this.#logger?.warn;
		if (warn !== undefined) callHook(warn.bind(this.#logger), message);
	}
}
