import { context, metrics, SpanKind, SpanStatusCode, trace, ValueType } from "@opentelemetry/api";
import type { HistogramMetricData, SumMetricData } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { ENDPOINTS } from "../../src/endpoints.js";
import { SDK_VERSION } from "../../src/internal/version.js";
import { instrumentMerchantGateway } from "../../src/opentelemetry/index.js";
import { transactionSchema } from "../../src/schemas/resources.js";
import { useGateway } from "../client/gateway.js";
import { cardParams, checkoutParams, failure } from "../client/helpers.js";
import { ids, signedFlat, signedWrapped, transaction } from "../support/gateway-messages.js";
import { AsyncContextManager, pointsWith, type RecordedTelemetry, recordTelemetry } from "../support/otel.js";

// One span per client call and its metrics, recorded by a real OpenTelemetry SDK (in memory) from calls to
// the sandbox gateway on loopback HTTP.

const gateway = useGateway();
let otel: RecordedTelemetry;
beforeEach(() => {
	otel = recordTelemetry();
	otel.instrument();
});
afterEach(() => otel.shutdown());

const traced = (overrides = {}) => gateway.client(overrides);
const onlySpan = (): ReadableSpan => {
	const spans = otel.spans();
	expect(spans).toHaveLength(1);
	return spans[0] as ReadableSpan;
};
const spanNamed = (name: string): ReadableSpan => {
	const span = otel.spans().find((item) => item.name === name);
	if (!span) throw new Error(`no span ${name} among ${otel.spans().map((item) => item.name)}`);
	return span;
};

describe("one span per call, named after the operation", () => {
	test("the endpoint table names every operation once", () => {
		const operations = Object.values(ENDPOINTS).map((endpoint) => endpoint.operation);
		expect(operations.sort()).toEqual([
			"card.charge",
			"checkout.create",
			"refunds.create",
			"refunds.retrieve",
			"transactions.retrieve",
		]);
	});

	test.each(["2.0", "2.1"] as const)(
		"every endpoint: name, kind, HTTP attributes, outcome and ids (%s)",
		async (version) => {
			const client = traced({ signVersion: version });
			const session = await client.checkout.create(checkoutParams({ orderRef: "ORD-TRACE-1" }));
			const charged = await client.card.charge(cardParams());
			const found = await client.transactions.retrieve(charged.transactionId);
			const refund = await client.refunds.create({ transactionId: charged.transactionId, amount: 5 });
			await client.refunds.retrieve(refund.refundId);

			expect(otel.spans().map((span) => span.name)).toEqual([
				"checkout.create",
				"card.charge",
				"transactions.retrieve",
				"refunds.create",
				"refunds.retrieve",
			]);
			const { hostname, port } = new URL(gateway.baseUrl);
			for (const span of otel.spans()) {
				expect(span.kind).toBe(SpanKind.CLIENT);
				expect(span.status.code).toBe(SpanStatusCode.UNSET);
				expect(span.instrumentationScope).toMatchObject({ name: "merchant-gateway", version: SDK_VERSION });
				const path = Object.values(ENDPOINTS).find((endpoint) => endpoint.operation === span.name)?.path;
				expect(span.attributes).toMatchObject({
					"http.request.method": "POST",
					"url.template": path,
					"url.full": `${gateway.baseUrl}${path}`,
					"server.address": hostname,
					"server.port": Number(port),
					"http.response.status_code": 200,
					"merchant_gateway.operation": span.name,
					"merchant_gateway.sign_version": version,
					"merchant_gateway.retries": 0,
				});
				expect(span.events).toEqual([]);
			}
			expect(spanNamed("checkout.create").attributes).toMatchObject({
				"merchant_gateway.outcome": "created",
				"merchant_gateway.order_ref": "ORD-TRACE-1",
				"merchant_gateway.transaction_id": session.transactionId,
			});
			expect(spanNamed("card.charge").attributes).toMatchObject({
				"merchant_gateway.outcome": "created",
				"merchant_gateway.transaction_id": charged.transactionId,
			});
			expect(spanNamed("transactions.retrieve").attributes).toMatchObject({
				"merchant_gateway.outcome": "retrieved",
				"merchant_gateway.transaction_id": found.transactionId,
			});
			expect(spanNamed("refunds.create").attributes).toMatchObject({
				"merchant_gateway.outcome": "created",
				"merchant_gateway.transaction_id": charged.transactionId,
				"merchant_gateway.refund_id": refund.refundId,
			});
			expect(spanNamed("refunds.retrieve").attributes).toMatchObject({
				"merchant_gateway.outcome": "retrieved",
				"merchant_gateway.refund_id": refund.refundId,
			});
		},
	);

	test("a 3-D Secure charge is a redirect; a refund held for approval is pending", async () => {
		const client = traced();
		await client.card.charge(cardParams({ cardNumber: "4000000000000036" }));
		expect(onlySpan().attributes["merchant_gateway.outcome"]).toBe("redirect");
		gateway.next("/v2/refund", () =>
			Response.json(
				signedWrapped("success", "Waiting for approval", { refundId: ids.refund, refundNumber: "R-1" }, "2.0"),
			),
		);
		const held = await client.refunds.create({ transactionId: ids.transaction, amount: 5 });
		expect(held.approval).toBe("pending_approval");
		expect(spanNamed("refunds.create").attributes["merchant_gateway.outcome"]).toBe("pending");
	});
});

describe("a failed call", () => {
	test("a refusal: status ERROR, error.type and the exception by class name and message", async () => {
		gateway.next("/v2/card/api", () =>
			Response.json(
				{ status: "error", message: "Amount too high", errors: [{ field: "amount", message: ["too high"] }] },
				{ status: 422 },
			),
		);
		const error = await failure(traced().card.charge(cardParams()));
		expect(error.message).toBe("Amount too high (amount: too high)");
		// The gateway's own words stay in the error the merchant catches, out of telemetry.
		const message = "[gateway text] (amount: [gateway text])";
		const span = onlySpan();
		expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message });
		expect(span.attributes).toMatchObject({
			"merchant_gateway.outcome": "refused",
			"error.type": "GatewayValidationError",
			"http.response.status_code": 422,
		});
		expect(span.events).toEqual([
			expect.objectContaining({
				name: "exception",
				attributes: { "exception.type": "GatewayValidationError", "exception.message": message },
			}),
		]);
	});

	test("a create whose connection drops: outcome unknown", async () => {
		gateway.next("/v2/checkout", () => Response.error());
		await failure(traced().checkout.create(checkoutParams()));
		expect(onlySpan().attributes).toMatchObject({
			"merchant_gateway.outcome": "unknown",
			"error.type": "OutcomeUnknownError",
			"merchant_gateway.retries": 0,
		});
		expect(onlySpan().attributes["http.response.status_code"]).toBeUndefined();
	});

	test("parameters refused before sending: invalid_request, nothing sent", async () => {
		await failure(traced().checkout.create(checkoutParams({ amount: 0 })));
		expect(gateway.count("/v2/checkout")).toBe(0);
		expect(onlySpan().attributes).toMatchObject({
			"merchant_gateway.outcome": "invalid_request",
			"error.type": "RequestValidationError",
		});
	});

	test("a query retried: the retries counted, each one a span event with its reason", async () => {
		gateway.next("/v2/checkout/query", { response: { status: 503 } }, () => Response.error());
		const transactionId = await gateway.chargedTransaction();
		await traced({ maxRetries: 2 }).transactions.retrieve(transactionId);
		const span = spanNamed("transactions.retrieve");
		expect(span.attributes).toMatchObject({ "merchant_gateway.retries": 2, "merchant_gateway.outcome": "retrieved" });
		expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
			[
				"merchant_gateway.retry",
				expect.objectContaining({ "http.request.resend_count": 1, "merchant_gateway.retry.reason": "status 503" }),
			],
			[
				"merchant_gateway.retry",
				expect.objectContaining({ "http.request.resend_count": 2, "merchant_gateway.retry.reason": "network error" }),
			],
		]);
	});

	test("a query the caller aborts: aborted", async () => {
		const controller = new AbortController();
		gateway.next("/v2/checkout/query", { delayMs: 60_000 });
		const pending = traced().transactions.retrieve(ids.transaction, { signal: controller.signal });
		setTimeout(() => controller.abort(), 20);
		await expect(pending).rejects.toThrow();
		expect(onlySpan().attributes).toMatchObject({ "merchant_gateway.outcome": "aborted", "error.type": "AbortError" });
	});
});

describe("metrics", () => {
	test("calls by operation and outcome, and their duration in seconds", async () => {
		const client = traced();
		await client.checkout.create(checkoutParams());
		await client.checkout.create(checkoutParams());
		await failure(client.checkout.create(checkoutParams({ amount: 0 })));
		const recorded = await otel.metrics();

		const calls = recorded.get("merchant_gateway.client.calls") as SumMetricData;
		expect(calls.descriptor).toMatchObject({ unit: "{call}", valueType: ValueType.INT });
		const created = { "merchant_gateway.operation": "checkout.create", "merchant_gateway.outcome": "created" };
		expect(pointsWith(calls.dataPoints, created).map((point) => point.value)).toEqual([2]);
		const refused = pointsWith(calls.dataPoints, { "merchant_gateway.outcome": "invalid_request" });
		expect(refused.map((point) => [point.value, point.attributes["error.type"]])).toEqual([
			[1, "RequestValidationError"],
		]);

		const duration = recorded.get("merchant_gateway.client.call.duration") as HistogramMetricData;
		expect(duration.descriptor).toMatchObject({ unit: "s" });
		const [point] = pointsWith(duration.dataPoints, created);
		expect(point?.value.count).toBe(2);
		expect(point?.value.min).toBeGreaterThan(0);
		// Seconds, not milliseconds: a loopback call takes far less than ten of them.
		expect(point?.value.max).toBeLessThan(10);
		expect(point?.value.buckets.boundaries).toContain(0.005);
	});
});

describe("where spans and metrics go", () => {
	beforeEach(() => instrumentMerchantGateway().disable());
	afterEach(() => {
		trace.disable();
		metrics.disable();
		context.disable();
	});

	test("nothing is recorded until the instrumentation is turned on", async () => {
		trace.setGlobalTracerProvider(otel.tracerProvider);
		metrics.setGlobalMeterProvider(otel.meterProvider);
		await gateway.client().checkout.create(checkoutParams());
		expect(otel.spans()).toEqual([]);
		expect((await otel.metrics()).size).toBe(0);
	});

	test("without options, the application's global providers", async () => {
		trace.setGlobalTracerProvider(otel.tracerProvider);
		metrics.setGlobalMeterProvider(otel.meterProvider);
		instrumentMerchantGateway();
		await gateway.client().checkout.create(checkoutParams());
		expect(onlySpan().name).toBe("checkout.create");
		expect((await otel.metrics()).has("merchant_gateway.client.calls")).toBe(true);
	});

	test("a global meter provider registered after the client's first call is used from then on", async () => {
		instrumentMerchantGateway();
		const client = gateway.client();
		await client.checkout.create(checkoutParams());
		metrics.setGlobalMeterProvider(otel.meterProvider);
		await client.checkout.create(checkoutParams());
		const calls = (await otel.metrics()).get("merchant_gateway.client.calls") as SumMetricData;
		expect(calls.dataPoints.map((point) => point.value)).toEqual([1]);
	});

	test("the options' providers win over the global ones", async () => {
		const global = recordTelemetry();
		trace.setGlobalTracerProvider(global.tracerProvider);
		metrics.setGlobalMeterProvider(global.meterProvider);
		otel.instrument();
		await traced().checkout.create(checkoutParams());
		expect(otel.spans()).toHaveLength(1);
		expect(global.spans()).toEqual([]);
		expect((await global.metrics()).size).toBe(0);
		await global.shutdown();
	});

	test("the span is a child of the caller's active span, and active while the request is sent", async () => {
		context.setGlobalContextManager(new AsyncContextManager());
		otel.instrument();
		const activeWhenSending: Array<string | undefined> = [];
		const client = traced({
			fetch: (input: Request | URL | string, init?: RequestInit) => {
				activeWhenSending.push((trace.getActiveSpan() as unknown as ReadableSpan | undefined)?.name);
				return fetch(input, init);
			},
		});
		const tracer = otel.tracerProvider.getTracer("shop");
		await tracer.startActiveSpan("place order", async (parent) => {
			await client.checkout.create(checkoutParams());
			parent.end();
		});
		expect(activeWhenSending).toEqual(["checkout.create"]);
		const parent = spanNamed("place order");
		expect(spanNamed("checkout.create").parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
	});

	test("a provider that throws costs a warning, never the payment", async () => {
		const warnings: string[] = [];
		const broken = {
			getTracer: () => {
				throw new Error("broken provider");
			},
		};
		const { disable } = instrumentMerchantGateway({ tracerProvider: broken });
		const client = gateway.client({ logger: { warn: (message: string) => warnings.push(message) } });
		const session = await client.checkout.create(checkoutParams());
		disable();
		expect(session.transactionId).toBeTruthy();
		expect(warnings).toEqual([expect.stringContaining("An instrumentation failed to start; the call goes on")]);
	});
});

describe("drift: a signed response with a status, code or field the SDK does not know", () => {
	const drifted = () => ({
		...transaction(),
		status: "chargeback_opened",
		statusCode: 31,
		riskScore: 12,
		fees: { ...transaction().fees, tax: 0.1 },
	});

	test("is handed over as before, and reported once per kind: logger, span event, counter", async () => {
		const warnings: string[] = [];
		const client = traced({ logger: { warn: (message: string) => warnings.push(message) } });
		gateway.next("/v2/checkout/query", () => Response.json(signedFlat(drifted(), "2.0")));
		const found = await client.transactions.retrieve(ids.transaction);
		// As before: the unknown status is kept, the unknown fields are dropped by the schema.
		expect(found).toEqual(transactionSchema.parse(drifted()));
		expect(found.status).toBe("chargeback_opened");

		const expected = [
			["unknown_status", "chargeback_opened"],
			["unknown_status_code", "31"],
			["unknown_field", "fees.tax"],
			["unknown_field", "riskScore"],
		];
		expect(warnings).toHaveLength(4);
		for (const [index, [, value]] of expected.entries()) expect(warnings[index]).toContain(JSON.stringify(value));
		const events = onlySpan().events.filter((event) => event.name === "merchant_gateway.drift");
		expect(
			events.map((event) => [
				event.attributes?.["merchant_gateway.drift.type"],
				event.attributes?.["merchant_gateway.drift.value"],
			]),
		).toEqual(expected);
		expect(events[0]?.attributes?.["merchant_gateway.drift.source"]).toBe("transactions.retrieve");

		// The same drift again: handed over, not reported again.
		gateway.next("/v2/checkout/query", () => Response.json(signedFlat(drifted(), "2.0")));
		await client.transactions.retrieve(ids.transaction);
		expect(warnings).toHaveLength(4);
		expect(otel.spans()[1]?.events).toEqual([]);

		const reports = (await otel.metrics()).get("merchant_gateway.drift.reports") as SumMetricData;
		expect(reports.dataPoints.map((point) => [point.attributes["merchant_gateway.drift.type"], point.value])).toEqual(
			expected.map(([type]) => [type, 1]),
		);
	});

	test("a response the SDK knows entirely reports nothing", async () => {
		const warnings: string[] = [];
		const client = traced({ logger: { warn: (message: string) => warnings.push(message) } });
		gateway.next("/v2/checkout/query", () => Response.json(signedFlat(transaction(), "2.0")));
		await client.transactions.retrieve(ids.transaction);
		expect(warnings).toEqual([]);
		expect(onlySpan().events).toEqual([]);
		expect((await otel.metrics()).has("merchant_gateway.drift.reports")).toBe(false);
	});
});
