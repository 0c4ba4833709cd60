// What telemetry costs a client call: `checkout.create` and `transactions.retrieve` against a loopback
// node:http stub returning pre-signed responses, by a client recording into a real OpenTelemetry SDK
// (spans through a SimpleSpanProcessor into an InMemorySpanExporter, metrics into a MeterProvider with a
// reader) against the same client with telemetry off (@opentelemetry/api loaded, no provider registered:
// the API's no-op). Goal: at most 1.05x the time (at least 0.95x the calls per second).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import {
	AggregationTemporality,
	InMemoryMetricExporter,
	MeterProvider,
	PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { GatewayClient, loadPrivateKey, loadPublicKey } from "../dist/index.js";
import { sealMessage } from "../dist/signing/index.js";
import { pairedCompare } from "./lib.mjs";

const keysUrl = new URL("../test/vectors/keys/", import.meta.url);
const pem = (name) => readFileSync(new URL(`${name}.pem`, keysUrl), "utf8");
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
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const metricReader = new PeriodicExportingMetricReader({
	exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
	exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [metricReader] });

const client = (telemetry) =>
	new GatewayClient({
		baseUrl,
		merchantId: "M-1001",
		privateKey: loadPrivateKey(pem("merchant-private")),
		gatewayPublicKey: loadPublicKey(pem("gateway-public")),
		signVersion: "2.1",
		allowLoopbackHttp: true,
		...telemetry,
	});
const off = client({});
const recorded = client({ tracerProvider, meterProvider });

const params = {
	orderRef: "ORD-2026-0001",
	amount: 10.5,
	currency: "EUR",
	paymentMethod: "checkout",
	callbackUrl: "https://shop.example/pay/callback",
	notificationUrl: "https://shop.example/pay/ipn",
	cancelUrl: "https://shop.example/pay/cancel",
	errorUrl: "https://shop.example/pay/error",
	orderDescription: "Two coffees",
};

// Sanity: both clients do the work; only the recording one records it.
await off.checkout.create(params);
await recorded.checkout.create(params);
if (
	spans
		.getFinishedSpans()
		.map((span) => span.name)
		.join() !== "checkout.create"
)
	throw new Error("no span recorded");

await pairedCompare(
	"telemetry: checkout.create, SDK recording vs off",
	() => off.checkout.create(params),
	() => recorded.checkout.create(params),
	{ goal: 1.05 },
);
await pairedCompare(
	"telemetry: transactions.retrieve, SDK recording vs off",
	() => off.transactions.retrieve(transactionId),
	() => recorded.transactions.retrieve(transactionId),
	{ goal: 1.05 },
);
console.log(`    (${spans.getFinishedSpans().length} spans recorded in memory)`);

await tracerProvider.shutdown();
await meterProvider.shutdown();
await new Promise((resolve) => server.close(resolve));
