import type { Meter, Tracer } from "@opentelemetry/api";
import { SDK_VERSION } from "../internal/version.js";
import { loadedOpenTelemetry, loadOpenTelemetry, type OpenTelemetry } from "./api.js";
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

/**
 * One component's telemetry (the client, the IPN handler, the reconciler): off until its first use loads
 * `@opentelemetry/api`, and off for good when the application has not installed it.
 */
export class Telemetry<Instruments> {
	readonly #providers: TelemetryProviders;
	readonly #define: (meter: Meter, api: OpenTelemetry) => Instruments;
	readonly #warn: (message: string) => void;
	#active: ActiveTelemetry<Instruments> | null | undefined;

	/**
	 * @param define makes the component's instruments on a meter.
	 * @param warn where to say that providers were given but the API could not be loaded.
	 */
	constructor(
		providers: TelemetryProviders,
		define: (meter: Meter, api: OpenTelemetry) => Instruments,
		warn: (message: string) => void,
	) {
		this.#providers = providers;
		this.#define = define;
		this.#warn = warn;
	}

	/** The active telemetry, or null when it is off: synchronous once the API's load has settled. */
	active(): ActiveTelemetry<Instruments> | null | Promise<ActiveTelemetry<Instruments> | null> {
		if (this.#active !== undefined) return this.#active;
		const loaded = loadedOpenTelemetry();
		if (loaded !== undefined) return this.#settle(loaded.api, loaded.error);
		return loadOpenTelemetry().then((api) => this.#settle(api, loadedOpenTelemetry()?.error));
	}

	#settle(api: OpenTelemetry | undefined, error: unknown): ActiveTelemetry<Instruments> | null {
		if (this.#active !== undefined) return this.#active;
		if (api === undefined) {
			const { tracerProvider, meterProvider } = this.#providers;
			if (tracerProvider !== undefined || meterProvider !== undefined) {
				const why = error instanceof Error ? ` (${error.name})` : "";
				this.#warn(
					`tracerProvider or meterProvider is set, but @opentelemetry/api could not be loaded${why}: ` +
						"no spans or metrics are recorded. Install @opentelemetry/api.",
				);
			}
			this.#active = null;
		} else {
			try {
				this.#active = new ActiveTelemetry(api, this.#providers, this.#define);
			} catch (error) {
				const name = error instanceof Error ? error.name : typeof error;
				this.#warn(`The tracer provider threw (${name}) when asked for a tracer: no spans or metrics are recorded.`);
				this.#active = null;
			}
		}
		return this.#active;
	}
}
