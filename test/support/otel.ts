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

/**
 * A real OpenTelemetry SDK that keeps what it records in memory: spans through a SimpleSpanProcessor into
 * an InMemorySpanExporter, metrics through a metric reader into an InMemoryMetricExporter (exported when
 * the test asks, never on a timer).
 */
export interface RecordedTelemetry {
	tracerProvider: TracerProvider;
	meterProvider: MeterProvider;
	/** The spans ended so far. */
	spans(): ReadableSpan[];
	/** The metrics recorded so far (cumulative), by name. */
	metrics(): Promise<Map<string, MetricData>>;
	shutdown(): Promise<void>;
}

export function recordTelemetry(): RecordedTelemetry {
	const spanExporter = new InMemorySpanExporter();
	const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporter })] });
	const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
	const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
	const meterProvider = new MeterProvider({ readers: [reader] });
	return {
		tracerProvider,
		meterProvider,
		spans: () => spanExporter.getFinishedSpans(),
		metrics: async () => {
			await reader.forceFlush();
			const latest = metricExporter.getMetrics().at(-1);
			const all = latest?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
			return new Map(all.map((metric) => [metric.descriptor.name, metric]));
		},
		shutdown: async () => {
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
