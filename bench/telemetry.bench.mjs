// What telemetry costs a client call: `checkout.create` and `transactions.retrieve` against a loopback
// node:http stub returning pre-signed responses, by a client recorded by merchant-gateway/opentelemetry's
// subscriber of the call seam into a real OpenTelemetry SDK (spans
// through a BatchSpanProcessor, as production exports them, into an InMemorySpanExporter emptied after each
// batch as an exporter sends it away; metrics into a MeterProvider with a reader) against the same client with
// telemetry off (no subscriber: the seam's one property read). Goal: at most 1.05x the
// time. A third line shows the floor: the client with telemetry off, wrapped in the records it makes of a call
// (one span with its attributes, two metric points) made directly with the same SDK.
import { createServer } from "node:http";
import {
	AggregationTemporality,
	InMemoryMetricExporter,
	MeterProvider,
	PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { GatewayClient, loadPrivateKey, loadPublicKey } from "../dist/index.js";
import { recordCalls } from "../dist/opentelemetry/client.js";
import { clientCalls } from "../dist/resources/call-watch.js";
import { sealMessage } from "../dist/signing/index.js";
import { CHECKOUT_PARAMS, pem } from "./checkout-bodies.mjs";
import { pairedCompare } from "./lib.mjs";

const gatewayKey = loadPrivateKey(pem("gateway-private"));
const transactionId = "01JD5Z8Q4V7M1X2C3B4N5P6R7S";

const created = {
	status: "created",
	transactionId,
	paymentLink: `https://pay.gateway.test/checkout/${transactionId}?sig=abc`,
	message: "Checkout session created",
};
const transaction = {
	transactionId,
	ref: "ORD-2026-0001",
	currency: "EUR",
	amount: 10.5,
	status: "successful",
	statusCode: 6,
	transactionCreatedAt: "2026-11-21T09:00:00Z",
};
const responses = {
	"/v2/checkout": JSON.stringify(sealMessage(created, { privateKey: gatewayKey, signVersion: "2.1" })),
	"/v2/checkout/query": JSON.stringify(sealMessage(transaction, { privateKey: gatewayKey, signVersion: "2.1" })),
};
const server = createServer((request, response) => {
	request.resume();
	request.on("end", () => {
		response.writeHead(200, { "content-type": "application/json" }).end(responses[request.url]);
	});
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${server.address().port}`;

const spans = new InMemorySpanExporter();
let exported = 0;
const exportBatch = spans.export.bind(spans);
spans.export = (batch, done) => {
	exportBatch(batch, done);
	exported += spans.getFinishedSpans().length;
	spans.reset();
};
const tracerProvider = new TracerProvider({
	spanProcessors: [new BatchSpanProcessor({ exporter: spans, scheduledDelayMillis: 200, maxQueueSize: 8192 })],
});
const metricReader = new PeriodicExportingMetricReader({
	exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
	exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [metricReader] });

const client = () =>
	new GatewayClient({
		baseUrl,
		merchantId: "M-1001",
		privateKey: loadPrivateKey(pem("merchant-private")),
		gatewayPublicKey: loadPublicKey(pem("gateway-public")),
		signVersion: "2.1",
		allowLoopbackHttp: true,
	});
// One client: the paired runs subscribe the instrumentation's call subscriber for the recorded call only.
const off = client();
const subscriber = recordCalls({ tracerProvider, meterProvider });
let unsubscribe = () => {};
const unrecorded = (call) => {
	unsubscribe();
	return call();
};
const recording = (call) => {
	unsubscribe = clientCalls.subscribe(subscriber);
	return call();
};
const recorded = {
	checkout: { create: (p) => recording(() => off.checkout.create(p)) },
	transactions: { retrieve: (id) => recording(() => off.transactions.retrieve(id)) },
};

const params = CHECKOUT_PARAMS;

/** The records the client makes of a call, made directly with the SDK around a call of the client that is off. */
const tracer = tracerProvider.getTracer("bench-floor");
const meter = meterProvider.getMeter("bench-floor");
const calls = meter.createCounter("merchant_gateway.client.calls", { unit: "{call}" });
const callDuration = meter.createHistogram("merchant_gateway.client.call.duration", { unit: "s" });
async function withBareRecords(operation, path, call) {
	const startedAt = performance.now();
	const span = tracer.startSpan(operation, {
		kind: 2,
		attributes: {
			"http.request.method": "POST",
			"url.template": path,
			"url.full": baseUrl + path,
			"server.address": "127.0.0.1",
			"server.port": server.address().port,
			"merchant_gateway.operation": operation,
			"merchant_gateway.sign_version": "2.1",
		},
	});
	const result = await call();
	span.setAttributes({
		"merchant_gateway.order_ref": params.orderRef,
		"merchant_gateway.transaction_id": transactionId,
		"merchant_gateway.retries": 0,
		"http.response.status_code": 200,
		"merchant_gateway.outcome": "created",
	});
	span.end();
	const point = { "merchant_gateway.operation": operation, "merchant_gateway.outcome": "created" };
	calls.add(1, point);
	callDuration.record((performance.now() - startedAt) / 1000, point);
	return result;
}

// Sanity: both clients do the work; only the recording one records it.
await unrecorded(() => off.checkout.create(params));
await recorded.checkout.create(params);
unsubscribe();
await tracerProvider.forceFlush();
if (exported !== 1) throw new Error(`${exported} spans recorded for one call`);

await pairedCompare(
	"telemetry: checkout.create, SDK recording vs off",
	() => unrecorded(() => off.checkout.create(params)),
	() => recorded.checkout.create(params),
	{ goal: 1.05 },
);
await pairedCompare(
	"telemetry: checkout.create, the SDK's own records alone vs off",
	() => unrecorded(() => off.checkout.create(params)),
	() => withBareRecords("checkout.create", "/v2/checkout", () => unrecorded(() => off.checkout.create(params))),
);
await pairedCompare(
	"telemetry: transactions.retrieve, SDK recording vs off",
	() => unrecorded(() => off.transactions.retrieve(transactionId)),
	() => recorded.transactions.retrieve(transactionId),
	{ goal: 1.05 },
);
await tracerProvider.forceFlush();
console.log(`    (${exported} spans recorded)`);

await tracerProvider.shutdown();
await meterProvider.shutdown();
await new Promise((resolve) => server.close(resolve));
