// What telemetry costs the IPN route: the handler's requests per second on loopback, recording through
// merchant-gateway/opentelemetry into a real OpenTelemetry SDK registered as the application's global
// providers (spans through a BatchSpanProcessor, as production exports them, into an InMemorySpanExporter
// emptied after each batch as an exporter sends it away; metrics into a MeterProvider with a reader), against
// the same handler with telemetry off (the entry not imported). Goals: at least 0.9x the requests per second
// on 2.0 deliveries, at least 0.97x of the floor below, and at least 1.1x the ratio of OpenTelemetry's own
// HTTP instrumentation (below), on 2.0 and 2.1 deliveries alike.
//
// The HTTP instrumentation server: @opentelemetry/instrumentation-http registered with the same SDK (one
// SERVER span and the http.server.request.duration histogram per request), the SDK's telemetry off. It is
// what an application that traces its HTTP server pays on this route anyway.
//
// A third server shows the floor any instrumentation of this route pays: the handler with telemetry off,
// wrapped in a listener that makes, per request, exactly the records the handler makes (one span with its
// attributes, the four step events, the three metric points, the span made active once) with the same SDK, and
// nothing else.
//
// A fourth shows what sampling buys: the handler recording into the same SDK with a sampler that keeps one
// trace in ten (every metric point is still recorded).
//
// The servers run in child processes (this file again), pinned to one CPU where the machine allows, the load
// generator on the other. IPN_TELEMETRY_VERSIONS=2.0 measures one version; IPN_TELEMETRY_ROUNDS=2 checks that
// the bench runs (its figures then mean little: 12 paired rounds are the measurement).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createMemoryStore, createNotificationHandler, toNodeListener } from "../dist/index.js";
import { sealMessage } from "../dist/signing/index.js";
import { loadIpnRoute, median, pinLoadAndServers, report, startChildServer } from "./lib.mjs";
import { vector } from "./vectors.mjs";

const keysDir = new URL("../test/vectors/keys/", import.meta.url);
const gatewayPrivatePem = readFileSync(new URL("gateway-private.pem", keysDir), "utf8");
const gatewayPublicPem = readFileSync(new URL("gateway-public.pem", keysDir), "utf8");
const typicalTransaction = vector("transaction-ipn-2.0").input;
const ROLE = process.env.IPN_TELEMETRY_BENCH_SERVER;

/** Distinct IPNs (one event each) signed in `signVersion`, to cycle through during the load test. */
const bodiesIn = (signVersion) =>
	Array.from({ length: 200 }, (_, i) =>
		JSON.stringify(
			sealMessage(
				{ ...typicalTransaction, transactionId: `01JD5Z8Q4V7M1X2C3B4N${String(i).padStart(6, "0")}` },
				{ privateKey: gatewayPrivatePem, signVersion },
			),
		),
	);

/** A real SDK: a tracer provider batching into an in-memory exporter, a meter provider with a reader. */
async function sdk(drain, sampledShare) {
	const { BatchSpanProcessor, InMemorySpanExporter, TracerProvider, TraceIdRatioBasedSampler } = await import(
		"@opentelemetry/sdk-trace"
	);
	const metrics = await import("@opentelemetry/sdk-metrics");
	const spans = new InMemorySpanExporter();
	const exportBatch = spans.export.bind(spans);
	spans.export = (batch, done) => {
		exportBatch(batch, done);
		drain(spans);
	};
	const reader = new metrics.PeriodicExportingMetricReader({
		exporter: new metrics.InMemoryMetricExporter(metrics.AggregationTemporality.CUMULATIVE),
		exportIntervalMillis: 3_600_000,
	});
	return {
		// Batched, as production exports spans; often enough that the queue never drops one.
		tracerProvider: new TracerProvider({
			spanProcessors: [new BatchSpanProcessor({ exporter: spans, scheduledDelayMillis: 200, maxQueueSize: 8192 })],
			...(sampledShare === undefined ? {} : { sampler: new TraceIdRatioBasedSampler(sampledShare) }),
		}),
		meterProvider: new metrics.MeterProvider({ readers: [reader] }),
	};
}

/**
 * Wraps a listener in the records the handler makes of a delivery, made directly with the SDK: the floor.
 * The attributes are those of a processed transaction IPN (names and values as the handler sets them).
 */
function withBareRecords(listener, { tracerProvider, meterProvider }, { context, trace }) {
	const tracer = tracerProvider.getTracer("bench-floor");
	const meter = meterProvider.getMeter("bench-floor");
	const deliveries = meter.createCounter("merchant_gateway.ipn.deliveries", { unit: "{delivery}" });
	const callback = meter.createHistogram("merchant_gateway.callback.duration", { unit: "s" });
	const claim = meter.createHistogram("merchant_gateway.store.claim.duration", { unit: "s" });
	return (req, res) => {
		const startedAt = performance.now();
		const span = tracer.startSpan("ipn.handle", {
			kind: 1,
			attributes: { "http.request.method": req.method, "merchant_gateway.operation": "ipn.handle" },
		});
		res.on("finish", () => {
			const ms = performance.now() - startedAt;
			span.addEvent("merchant_gateway.verify", { "merchant_gateway.duration_ms": ms });
			span.addEvent("merchant_gateway.claim", {
				"merchant_gateway.duration_ms": ms,
				"merchant_gateway.claim.result": "claimed",
			});
			span.addEvent("merchant_gateway.callback", { "merchant_gateway.duration_ms": ms });
			span.addEvent("merchant_gateway.confirm", { "merchant_gateway.duration_ms": ms });
			span.setAttributes({
				"merchant_gateway.event_id": "transaction:01JD5Z8Q4V7M1X2C3B4N000001:successful",
				"merchant_gateway.event.kind": "transaction",
				"merchant_gateway.status": "successful",
				"merchant_gateway.sign_version": "2.1",
				"merchant_gateway.transaction_id": "01JD5Z8Q4V7M1X2C3B4N000001",
				"merchant_gateway.outcome": "processed",
				"http.response.status_code": res.statusCode,
				"merchant_gateway.return_code": "100",
			});
			span.end();
			const kind = { "merchant_gateway.event.kind": "transaction", "merchant_gateway.source": "ipn" };
			claim.record(ms / 1000, { ...kind, "merchant_gateway.claim.result": "claimed" });
			callback.record(ms / 1000, kind);
			deliveries.add(1, { "merchant_gateway.event.kind": "transaction", "merchant_gateway.outcome": "processed" });
		});
		// The span made active around the handler's work, as the handler makes it around the merchant's callback.
		context.with(trace.setSpan(context.active(), span), () => listener(req, res));
	};
}

const cpuMicroseconds = () => {
	const { user, system } = process.cpuUsage();
	return user + system;
};

async function serve(role) {
	let recorded = 0;
	/** Counts the delivery spans the exporter holds, then forgets them, as a real exporter sends them away. */
	const drain = (spans) => {
		recorded += spans.getFinishedSpans().filter((span) => span.name === "ipn.handle" || span.kind === 1).length;
		spans.reset();
	};
	// "sampled": one trace in ten kept, as a busy route may be configured (metrics are still all recorded).
	const providers = role === "off" ? undefined : await sdk(drain, role === "sampled" ? 0.1 : undefined);
	if (providers !== undefined) {
		const { trace, metrics } = await import("@opentelemetry/api");
		trace.setGlobalTracerProvider(providers.tracerProvider);
		metrics.setGlobalMeterProvider(providers.meterProvider);
	}
	if (role === "recording" || role === "sampled") {
		const { instrumentMerchantGateway } = await import("../dist/opentelemetry/index.js");
		instrumentMerchantGateway();
	}
	if (role === "http") {
		const { registerInstrumentations } = await import("@opentelemetry/instrumentation");
		const { HttpInstrumentation } = await import("@opentelemetry/instrumentation-http");
		registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });
	}
	// Required after the instrumentation is registered, which patches the module as it is required.
	const { createServer } = createRequire(import.meta.url)("node:http");
	let processed = 0;
	const handler = createNotificationHandler({
		gatewayPublicKey: gatewayPublicPem,
		// Each delivery a new event, as in notifications.bench.mjs: the whole path runs every time.
		store: createMemoryStore({ ttlMs: 1 }),
		onTransaction: async () => {
			processed++;
		},
		onRefund: async () => {},
	});
	const listener =
		role === "floor"
			? withBareRecords(toNodeListener(handler), providers, await import("@opentelemetry/api"))
			: toNodeListener(handler);
	let served = 0;
	const server = createServer((req, res) => {
		served++;
		listener(req, res);
	});
	server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
	process.on("message", async () => {
		await providers?.tracerProvider.forceFlush();
		process.send({ served, processed, recorded, cpuUs: cpuMicroseconds() });
	});
	process.on("disconnect", () => process.exit(0));
}

async function startServer(role, serverPrefix) {
	const { hello, ask, stop } = await startChildServer(
		import.meta.url,
		{ IPN_TELEMETRY_BENCH_SERVER: role },
		serverPrefix,
	);
	return { port: hello.port, usage: ask, stop };
}

async function loadServer(server, bodies, seconds) {
	const before = await server.usage();
	await loadIpnRoute(server.port, bodies, seconds);
	const after = await server.usage();
	const served = after.served - before.served;
	if (after.processed - before.processed !== served) throw new Error("bench setup: deliveries skipped the callback");
	const cpuUsPerRequest = (after.cpuUs - before.cpuUs) / served;
	return { rps: served / seconds, served, recorded: after.recorded - before.recorded, cpuUsPerRequest };
}

const ROLES = ["off", "recording", "floor", "sampled", "http"];

async function main() {
	const versions = (process.env.IPN_TELEMETRY_VERSIONS ?? "2.0,2.1").split(",");
	const pin = await pinLoadAndServers();
	const servers = {};
	for (const role of ROLES) servers[role] = await startServer(role, pin.serverPrefix);
	for (const version of versions) await measureVersion(version, servers);
	await Promise.all(ROLES.map((role) => servers[role].stop()));
	pin.release();
}

async function measureVersion(version, servers) {
	const bodies = bodiesIn(version);
	const load = (server, seconds) => loadServer(server, bodies, seconds);
	for (const role of ROLES) {
		const warm = await load(servers[role], 1);
		// Sanity: the recording servers record a span per delivery (the sampled one about a tenth of them).
		if (role === "sampled" && (warm.recorded === 0 || warm.recorded > warm.served / 4))
			throw new Error(`bench setup: sampled recorded ${warm.recorded} spans for ${warm.served} deliveries`);
		if ((role === "recording" || role === "floor" || role === "http") && warm.recorded !== warm.served)
			throw new Error(`bench setup: ${role} recorded ${warm.recorded} spans for ${warm.served} deliveries`);
	}
	const rounds = [];
	const roundCount = Number(process.env.IPN_TELEMETRY_ROUNDS ?? 12);
	for (let round = 0; round < roundCount; round++) {
		// Each role goes first, second and third equally often.
		const order = ROLES.map((_, i) => ROLES[(i + round) % ROLES.length]);
		const figures = {};
		for (const role of order) figures[role] = await load(servers[role], 1.5);
		rounds.push(figures);
	}
	const rps = (role) => median(rounds.map((round) => round[role].rps));
	const share = (role) => median(rounds.map((round) => round[role].rps / round.off.rps));
	const cpu = (role) => median(rounds.map((round) => round[role].cpuUsPerRequest));
	const over = (role, base) => median(rounds.map((round) => round[role].rps / round[base].rps));
	// As a ratio of time per request (off's requests per second over recording's): at most 1/0.9.
	report(`IPN handler ${version}, SDK recording vs off (time per request)`, {
		baselineNs: 1e9 / rps("off"),
		candidateNs: 1e9 / rps("recording"),
		ratio: 1 / share("recording"),
		goal: 1 / 0.9,
	});
	report(`IPN handler ${version}, the SDK's own records alone vs off (the floor)`, {
		baselineNs: 1e9 / rps("off"),
		candidateNs: 1e9 / rps("floor"),
		ratio: 1 / share("floor"),
	});
	report(`IPN handler ${version}, SDK recording one trace in ten vs off`, {
		baselineNs: 1e9 / rps("off"),
		candidateNs: 1e9 / rps("sampled"),
		ratio: 1 / share("sampled"),
	});
	report(`IPN handler ${version}, OpenTelemetry's HTTP instrumentation (SDK telemetry off) vs off`, {
		baselineNs: 1e9 / rps("off"),
		candidateNs: 1e9 / rps("http"),
		ratio: 1 / share("http"),
	});
	console.log(
		`    (${version}, medians of paired rounds: recording ${share("recording").toFixed(3)}x off, ` +
			`http instrumentation ${share("http").toFixed(3)}x off, recording ${over("recording", "http").toFixed(3)}x ` +
			`the http instrumentation (goal >= 1.1x), recording ${over("recording", "floor").toFixed(3)}x the floor ` +
			`(goal >= 0.97x), sampled ${share("sampled").toFixed(3)}x off (goal >= 0.95x))`,
	);
	const each = (role) => rounds.map((round) => (round[role].rps / round.off.rps).toFixed(2)).join(" ");
	console.log(
		`    (median round: ${share("recording").toFixed(3)}x the requests per second recording, goal >= 0.9x; ` +
			`${share("floor").toFixed(3)}x with the SDK's records alone, ${share("sampled").toFixed(3)}x recording one ` +
			"trace in ten; median requests per second " +
			`${rps("recording").toFixed(0)} recording, ${rps("floor").toFixed(0)} floor, ${rps("off").toFixed(0)} off; ` +
			`server CPU per request ${cpu("recording").toFixed(1)} us recording, ${cpu("floor").toFixed(1)} us floor, ` +
			`${cpu("sampled").toFixed(1)} us sampled, ${cpu("off").toFixed(1)} us off)`,
	);
	console.log(
		`    (each round, recording: ${each("recording")}; floor: ${each("floor")}; sampled: ${each("sampled")}; ` +
			`http: ${each("http")})`,
	);
}

if (ROLE) await serve(ROLE);
else await main();
