import type { Meter, Tracer } from "@opentelemetry/api";
import { SDK_VERSION } from "../internal/version.js";
import type { OpenTelemetry } from "./api.js";
import type { MeterProviderLike, TelemetryProviders } from "./options.js";

/** The instrumentation scope of every span and metric: the package's name and version. */
export const SCOPE = { name: "merchant-gateway", version: SDK_VERSION } as const;

/** A component's tracer and instruments, once `@opentelemetry/api` is loaded. */
export class ActiveTelemetry<Instruments> {
	readonly api: OpenTelemetry;
	readonly tracer: Tracer;
	readonly #meterProvider: MeterProviderLike | undefined;
	readonly #define: (meter: Meter, api: OpenTelemetry) => Instruments;
	#instruments: { provider: MeterProviderLike; instruments: Instruments } | undefined;

	constructor(
		api: OpenTelemetry,
		providers: TelemetryProviders,
		define: (meter: Meter, api: OpenTelemetry) => Instruments,
	) {
		this.api = api;
		// The global tracer provider is a proxy: a tracer taken from it now follows a provider registered later.
		const tracerProvider = providers.tracerProvider ?? api.trace.getTracerProvider();
		this.tracer = tracerProvider.getTracer(SCOPE.name, SCOPE.version) as Tracer;
		this.#meterProvider = providers.meterProvider;
		this.#define = define;
	}

	/**
	 * The instruments, made on the meter of the options' provider, or of the global one as registered now: the
	 * global meter provider is no proxy (a meter taken before registration records nothing, ever), so it is
	 * looked up each time and the instruments made again when it has changed.
	 */
	instruments(): Instruments {
		const provider = this.#meterProvider ?? this.api.metrics.getMeterProvider();
		if (this.#instruments?.provider !== provider) {
			const meter = provider.getMeter(SCOPE.name, SCOPE.version) as Meter;
			this.#instruments = { provider, instruments: this.#define(meter, this.api) };
		}
		return this.#instruments.instruments;
	}
}
