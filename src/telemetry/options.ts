import * as z from "zod/mini";

/**
 * An OpenTelemetry `TracerProvider` (from `@opentelemetry/sdk-trace`, `@opentelemetry/sdk-node` or any
 * SDK): the SDK only asks it for its tracer.
 */
export interface TracerProviderLike {
	/** OpenTelemetry's `TracerProvider.getTracer`: the tracer of the named instrumentation scope. */
	getTracer(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

/**
 * An OpenTelemetry `MeterProvider` (from `@opentelemetry/sdk-metrics`, `@opentelemetry/sdk-node` or any
 * SDK): the SDK only asks it for its meter.
 */
export interface MeterProviderLike {
	/** OpenTelemetry's `MeterProvider.getMeter`: the meter of the named instrumentation scope. */
	getMeter(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

/** Where the SDK's spans and metrics go: the options' providers, or the application's global ones. */
export interface TelemetryProviders {
	tracerProvider?: TracerProviderLike | undefined;
	meterProvider?: MeterProviderLike | undefined;
}

const providerWith = (method: string) => (value: unknown) =>
	typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)[method] === "function";

/** The telemetry options, with their rules and documentation, as the client, handler and reconciler take them. */
export function telemetryOptionsShape() {
	return {
		/**
		 * Where spans go, instead of the global tracer provider. Needs `@opentelemetry/api` installed; without
		 * it the SDK records nothing (and says so once on the logger when this is set).
		 * @default the tracer provider registered with `@opentelemetry/api` (none registered: no spans)
		 */
		tracerProvider: z.optional(
			z.custom<TracerProviderLike>(
				providerWith("getTracer"),
				"must be an OpenTelemetry TracerProvider (an object with a getTracer method)",
			),
		),
		/**
		 * Where metrics go, instead of the global meter provider. Needs `@opentelemetry/api` installed; without
		 * it the SDK records nothing (and says so once on the logger when this is set).
		 * @default the meter provider registered with `@opentelemetry/api` (none registered: no metrics)
		 */
		meterProvider: z.optional(
			z.custom<MeterProviderLike>(
				providerWith("getMeter"),
				"must be an OpenTelemetry MeterProvider (an object with a getMeter method)",
			),
		),
	};
}
