// merchant-gateway/opentelemetry: the SDK's spans and metrics, recorded with @opentelemetry/api.
import { ConfigurationError } from "../errors/configuration-error.js";
import { replays } from "../notifications/claims/replay-watch.js";
import { ipnDeliveries } from "../notifications/handler/delivery-watch.js";
import { reconciliations } from "../notifications/reconciler/reconcile-watch.js";
import { clientCalls } from "../resources/call-watch.js";
import { ActiveTelemetry, type OpenTelemetryOptions } from "./active.js";
import { RecordedCall } from "./client.js";
import { RecordedDelivery } from "./delivery.js";
import { defineClientInstruments, defineEventInstruments } from "./instruments.js";
import { RecordedReconciliation } from "./reconcile.js";
import { RecordedReplay } from "./replay.js";

export type { MeterProviderLike, OpenTelemetryOptions, TracerProviderLike } from "./active.js";

/** What `instrumentMerchantGateway` returns. */
export interface MerchantGatewayInstrumentation {
	/** Stops recording: the SDK's calls, deliveries, replays and reconciliations are no longer recorded. */
	disable(): void;
}

const hasMethod = (value: unknown, method: string) =>
	typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)[method] === "function";

/** Each provider option, the method it must have, and what it must be. */
const PROVIDERS = [
	["tracerProvider", "getTracer", "TracerProvider"],
	["meterProvider", "getMeter", "MeterProvider"],
] as const;

/**
 * Records the SDK's work with OpenTelemetry from now on, in this process: a span and metrics per client call,
 * per IPN delivery, per replay of a failed event and per reconciliation (docs/operations.md lists them). Call
 * it once, when the application starts; clients and handlers made before or after are recorded alike, from
 * their first call. A second call replaces the first.
 *
 * ```ts
 * import { instrumentMerchantGateway } from "merchant-gateway/opentelemetry";
 * instrumentMerchantGateway();
 * ```
 *
 * @throws ConfigurationError when a provider given is not one.
 */
export function instrumentMerchantGateway(options: OpenTelemetryOptions = {}): MerchantGatewayInstrumentation {
	const { tracerProvider, meterProvider } = options ?? {};
	const providers: OpenTelemetryOptions = { tracerProvider, meterProvider };
	const issues = PROVIDERS.filter(
		([field, method]) => providers[field] !== undefined && !hasMethod(providers[field], method),
	).map(([field, method, what]) => ({
		field,
		message: `must be an OpenTelemetry ${what} (an object with a ${method} method)`,
	}));
	if (issues.length > 0) throw new ConfigurationError(issues, "OpenTelemetry options");
	const calls = new ActiveTelemetry(providers, defineClientInstruments);
	// The IPN handler, the replays and the reconciler share their metrics.
	const events = new ActiveTelemetry(providers, defineEventInstruments);
	const unsubscribe = [
		clientCalls.subscribe((start) => new RecordedCall(calls, start)),
		ipnDeliveries.subscribe((start) => new RecordedDelivery(events, start)),
		replays.subscribe(() => new RecordedReplay(events)),
		reconciliations.subscribe((start) => new RecordedReconciliation(events, start.total)),
	];
	return {
		disable() {
			for (const stop of unsubscribe) stop();
		},
	};
}
