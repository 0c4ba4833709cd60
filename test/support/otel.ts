import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, type ContextManager, ROOT_CONTEXT } from "@opentelemetry/api";
import {
	AggregationTemporality,
	InMemoryMetricExporter,
	MeterProvider,
	type MetricData,
	PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import * as traceBase from "@opentelemetry/sdk-trace-base";
import { instrumentMerchantGateway } from "../../src/opentelemetry/index.js";

/**
 * The tracing SDK a test records with: `@opentelemetry/sdk-trace` 3, or `@opentelemetry/sdk-trace-base` 2, the
 * generation most applications still run.
 */
export type TracingSdk = "sdk-trace" | "sdk-trace-base";

/**
 * A real OpenTelemetry SDK that keeps what it records in memory: spans through a SimpleSpanProcessor into
 * an InMemorySpanExporter, metrics through a metric reader into an InMemoryMetricExporter (exported when
 * the test asks, never on a timer).
 */
export interface RecordedTelemetry {
	tracerProvider: TracerProvider | traceBase.BasicTracerProvider;
	meterProvider: MeterProvider;
	/** The spans ended so far. */
	spans(): ReadableSpan[];
	/** Records the SDK's work into these providers (merchant-gateway/opentelemetry) until `shutdown`. */
	instrument(): void;
	/** The metrics recorded so far (cumulative), by name. */
	metrics(): Promise<Map<string, MetricData>>;
	shutdown(): Promise<void>;
}

export function recordTelemetry(sdk: TracingSdk = "sdk-trace", sampler?: traceBase.Sampler): RecordedTelemetry {
	let spans: () => ReadableSpan[];
	let tracerProvider: RecordedTelemetry["tracerProvider"];
	if (sdk === "sdk-trace") {
		const spanExporter = new InMemorySpanExporter();
		tracerProvider = new TracerProvider({
			spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporter })],
			...(sampler === undefined ? {} : { sampler }),
		});
		spans = () => spanExporter.getFinishedSpans();
	} else {
		const spanExporter = new traceBase.InMemorySpanExporter();
		const spanProcessors = [new traceBase.SimpleSpanProcessor(spanExporter)];
		tracerProvider = new traceBase.BasicTracerProvider({ spanProcessors });
		// The same fields under the previous generation's type.
		spans = () => spanExporter.getFinishedSpans() as unknown as ReadableSpan[];
	}
	const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
	const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
	const meterProvider = new MeterProvider({ readers: [reader] });
	let disable = () => {};
	return {
		tracerProvider,
		meterProvider,
		spans,
		instrument: () => {
			disable = instrumentMerchantGateway({ tracerProvider, meterProvider }).disable;
		},
		metrics: async () => {
			await reader.forceFlush();
			const latest = metricExporter.getMetrics().at(-1);
			const all = latest?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
			return new Map(all.map((metric) => [metric.descriptor.name, metric]));
		},
		shutdown: async () => {
			disable();
			await tracerProvider.shutdown();
			await meterProvider.shutdown();
		},
	};
}

/** The data points of a metric whose attributes include `attributes`. */
export function pointsWith<P extends { attributes: Record<string, unknown> }>(
	points: readonly P[],
	attributes: Record<string, unknown>,
): P[] {
	return points.filter((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value));
}

/** A context manager over AsyncLocalStorage, so that an active span follows the awaits of a call. */
export class AsyncContextManager implements ContextManager {
	readonly #storage = new AsyncLocalStorage<Context>();

	active(): Context {
		return this.#storage.getStore() ?? ROOT_CONTEXT;
	}

	with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
		context: Context,
		fn: F,
		thisArg?: ThisParameterType<F>,
		...args: A
	): ReturnType<F> {
		return this.#storage.run(context, () => fn.call(thisArg, ...args));
	}

	bind<T>(_context: Context, target: T): T {
		return target;
	}

	enable(): this {
		return this;
	}

	disable(): this {
		this.#storage.disable();
		return this;
	}
}
