import { loadOpenTelemetry, type OpenTelemetry } from "./api.js";
import type { TelemetryProviders } from "./options.js";

/**
 * Loads a component's recorder module (with `import()`) and returns what makes its recorder from the API and
 * the providers. The recording code loads with `@opentelemetry/api`, never without it.
 */
export type RecorderLoader<Recorder> = () => Promise<(api: OpenTelemetry, providers: TelemetryProviders) => Recorder>;

/**
 * One component's telemetry (the client, the IPN handler, the reconciler): off until its first use loads
 * `@opentelemetry/api` and the component's recorder, and off for good when the application has not
 * installed the API.
 */
export class Telemetry<Recorder> {
	readonly #providers: TelemetryProviders;
	readonly #load: RecorderLoader<Recorder>;
	readonly #warn: (message: string) => void;
	#recorder: Recorder | null | undefined;
	#loading: Promise<Recorder | null> | undefined;

	/** @param warn where to say that telemetry cannot record although providers were given, or failed to start. */
	constructor(providers: TelemetryProviders, load: RecorderLoader<Recorder>, warn: (message: string) => void) {
		this.#providers = providers;
		this.#load = load;
		this.#warn = warn;
	}

	/** The recorder, or null when telemetry is off: synchronous once loading has settled. */
	active(): Recorder | null | Promise<Recorder | null> {
		if (this.#recorder !== undefined) return this.#recorder;
		this.#loading ??= this.#start().then((recorder) => {
			this.#recorder = recorder;
			return recorder;
		});
		return this.#loading;
	}

	async #start(): Promise<Recorder | null> {
		const api = await loadOpenTelemetry();
		if (api === undefined) {
			const { tracerProvider, meterProvider } = this.#providers;
			if (tracerProvider !== undefined || meterProvider !== undefined) {
				this.#warn(
					"tracerProvider or meterProvider is set, but @opentelemetry/api could not be loaded: " +
						"no spans or metrics are recorded. Install @opentelemetry/api.",
				);
			}
			return null;
		}
		try {
			const create = await this.#load();
			return create(api, this.#providers);
		} catch (error) {
			const name = error instanceof Error ? error.name : typeof error;
			this.#warn(
				`Telemetry could not start (${name}, from the tracer or meter provider): no spans or metrics are recorded.`,
			);
			return null;
		}
	}
}
