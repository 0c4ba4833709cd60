import { context, SpanStatusCode } from "@opentelemetry/api";
import type { HistogramMetricData, SumMetricData } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "vitest";
import { createMemoryStore, createReconciler } from "../../src/index.js";
import { MESSAGE_NOT_RECORDED } from "../../src/opentelemetry/described.js";
import { useGateway } from "../client/gateway.js";
import { AsyncContextManager, pointsWith, type RecordedTelemetry, recordTelemetry } from "../support/otel.js";

// The reconciler's runs as spans: one per run, one per id under it, the client's query and the run's
// steps under each id; the reconciled events counted. A real OpenTelemetry SDK in memory, the sandbox
// gateway on loopback HTTP, the real client.

const gateway = useGateway();
let otel: RecordedTelemetry;
beforeAll(() => {
	context.setGlobalContextManager(new AsyncContextManager());
});
afterAll(() => context.disable());
beforeEach(() => {
	otel = recordTelemetry();
	otel.instrument();
});
afterEach(() => otel.shutdown());

const spansNamed = (name: string): ReadableSpan[] => otel.spans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) =>
	otel.spans().find((other) => other.spanContext().spanId === span.parentSpanContext?.spanId)?.name;

test("a run is a span with its counts; each id a child span with the client's query under it and its steps as events", async () => {
	const charged = [await gateway.chargedTransaction(), await gateway.chargedTransaction()];
	const missing = "01JTEMRECNC1E0000000000000";
	const reconciler = createReconciler({
		gateway: gateway.client({ maxRetries: 0 }),
		store: createMemoryStore(),
		onTransaction: async (transaction) => {
			if (transaction.transactionId === charged[1]) throw new Error("the order table is locked");
		},
		onRefund: async () => {},
	});
	const report = await reconciler.reconcile({ transactions: [...charged, missing] });
	expect(report).toMatchObject({ total: 3, processed: 1, failed: 2 });

	const [run] = spansNamed("reconcile");
	expect(run?.attributes).toEqual({
		"merchant_gateway.reconcile.total": 3,
		"merchant_gateway.reconcile.processed": 1,
		"merchant_gateway.reconcile.already_processed": 0,
		"merchant_gateway.reconcile.in_progress": 0,
		"merchant_gateway.reconcile.pending": 0,
		"merchant_gateway.reconcile.failed": 2,
	});
	const items = spansNamed("reconcile.transaction");
	expect(items.map(parentOf)).toEqual(["reconcile", "reconcile", "reconcile"]);
	const item = (id: string) => items.find((span) => span.attributes["merchant_gateway.transaction_id"] === id);

	const processed = item(charged[0] as string);
	expect(processed?.attributes).toMatchObject({
		"merchant_gateway.outcome": "processed",
		"merchant_gateway.status": "successful",
		"merchant_gateway.event.kind": "transaction",
	});
	expect(processed?.status.code).toBe(SpanStatusCode.UNSET);
	const under = (parent: ReadableSpan | undefined) =>
		otel
			.spans()
			.filter((span) => span.parentSpanContext?.spanId === parent?.spanContext().spanId)
			.map((span) => span.name);
	// The client's own span for the query nests under the id's span; the run's steps are its events.
	expect(under(processed)).toEqual(["transactions.retrieve"]);
	const steps = (span: ReadableSpan | undefined) => span?.events.map((event) => event.name);
	expect(steps(processed)).toEqual(["merchant_gateway.claim", "merchant_gateway.callback", "merchant_gateway.confirm"]);

	const failedCallback = item(charged[1] as string);
	expect(failedCallback?.attributes).toMatchObject({ "merchant_gateway.outcome": "failed", "error.type": "Error" });
	expect(failedCallback?.status).toEqual({ code: SpanStatusCode.ERROR, message: MESSAGE_NOT_RECORDED });
	expect(steps(failedCallback)).toContain("merchant_gateway.release");

	const notFound = item(missing);
	expect(notFound?.attributes["merchant_gateway.outcome"]).toBe("failed");
	expect(under(notFound)).toEqual(["transactions.retrieve"]);
	expect(steps(notFound)).toEqual(["exception"]);

	const recorded = await otel.metrics();
	const events = recorded.get("merchant_gateway.reconcile.events") as SumMetricData;
	const count = (outcome: string) =>
		pointsWith(events.dataPoints, { "merchant_gateway.outcome": outcome }).reduce((sum, p) => sum + p.value, 0);
	expect([count("processed"), count("failed")]).toEqual([1, 2]);
	const callbacks = recorded.get("merchant_gateway.callback.duration") as HistogramMetricData;
	const fromReconciler = pointsWith(callbacks.dataPoints, { "merchant_gateway.source": "reconcile" });
	expect(fromReconciler.reduce((sum, point) => sum + point.value.count, 0)).toBe(2);
});
