import { type Meter, metrics, type Tracer, trace } from "@opentelemetry/api";
import { SDK_VERSION } from "../internal/version.js";

/** The instrumentation scope of every span and metric: the package's name and version. */
export const SCOPE = { name: "merchant-gateway", version: SDK_VERSION } as const;

/**
 * An OpenTelemetry `TracerProvider` (from `@opentelemetry/sdk-trace`, `@opentelemetry/sdk-node` or any
 * SDK): only its tracer is asked for.
 */
export interface TracerProviderLike {
	/** OpenTelemetry's `TracerProvider.getTracer`: the tracer of the named instrumentation scope. */
	getTracer(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

/**
 * An OpenTelemetry `MeterProvider` (from `@opentelemetry/sdk-metrics`, `@opentelemetry/sdk-node` or any
 * SDK): only its meter is asked for.
 */
export interface MeterProviderLike {
	/** OpenTelemetry's `MeterProvider.getMeter`: the meter of the named instrumentation scope. */
	getMeter(name: string, version?: string, options?: { schemaUrl?: string }): unknown;
}

/** Where the SDK's spans and metrics go: the given providers, or the application's global ones. */
export interface OpenTelemetryOptions {
	/**
	 * Where spans go, instead of the global tracer provider.
	 * @default the tracer provider registered with `@opentelemetry/api`, now or later (none registered: no spans)
	 */
	tracerProvider?: TracerProviderLike | undefined;
	/**
	 * Where metrics go, instead of the global meter provider.
	 * @default the meter provider registered with `@opentelemetry/api`, now or later (none registered: no metrics)
	 */
	meterProvider?: MeterProviderLike | undefined;
}

/** A component's tracer and instruments. */
export class ActiveTelemetry<Instruments> {
	readonly #providers: OpenTelemetryOptions;
	readonly #define: (meter: Meter) => Instruments;
	#tracer: Tracer | undefined;
	#instruments: { provider: MeterProviderLike; instruments: Instruments } | undefined;

	constructor(providers: OpenTelemetryOptions, define: (meter: Meter) => Instruments) {
		this.#providers = providers;
		this.#define = define;
	}

	/**
	 * The tracer, taken from the provider on first use: the global tracer provider is a proxy, so a tracer taken
	 * from it follows a provider registered later. @throws what the provider throws (the record is then not made).
	 */
	get tracer(): Tracer {
		if (this.#tracer === undefined) {
			const provider = this.#providers.tracerProvider ?? trace.getTracerProvider();
			this.#tracer = provider.getTracer(SCOPE.name, SCOPE.version) as Tracer;
		}
		return this.#tracer;
	}

	/**
	 * The instruments, made on the meter of the given provider, or of the global one as registered now: the
	 * global meter provider is no proxy (a meter taken before registration records nothing, ever), so it is
	 * looked up each time and the instruments made again when it has changed.
	 */
	instruments(): Instruments {
		const provider = this.#providers.meterProvider ?? metrics.getMeterProvider();
		if (this.#instruments?.provider !== provider) {
			const meter = provider.getMeter(SCOPE.name, SCOPE.version) as Meter;
			this.#instruments = { provider, instruments: this.#define(meter) };
		}
		return this.#instruments.instruments;
	}
}
