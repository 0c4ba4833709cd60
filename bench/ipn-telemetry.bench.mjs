// What telemetry costs the IPN route: the handler's requests per second on loopback, recording into a
// real OpenTelemetry SDK (spans through a BatchSpanProcessor, as production exports them, into an
// InMemorySpanExporter; metrics into a MeterProvider with a reader) against the same handler with telemetry off (@opentelemetry/api loaded,
// no provider registered). Goal: at least 0.9x the requests per second. The servers run in child
// processes (this file again), pinned to one CPU where the machine allows, the load generator on the other.
import { fork, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { createMemoryStore, createNotificationHandler, toNodeListener } from "../dist/index.js";
import { sealMessage } from "../dist/signing/index.js";
import { loadIpnRoute, median, pinLoadAndServers, report } from "./lib.mjs";
import { vector } from "./vectors.mjs";

const keysDir = new URL("../test/vectors/keys/", import.meta.url);
const gatewayPrivatePem = readFileSync(new URL("gateway-private.pem", keysDir), "utf8");
const gatewayPublicPem = readFileSync(new URL("gateway-public.pem", keysDir), "utf8");
const typicalTransaction = vector("transaction-ipn-2.0").input;
const ROLE = process.env.IPN_TELEMETRY_BENCH_SERVER;

/** Distinct IPNs (one event each), 2.1 raw text, to cycle through during the load test. */
const bodies = Array.from({ length: 200 }, (_, i) =>
	JSON.stringify(
		sealMessage(
			{ ...typicalTransaction, transactionId: `01JD5Z8Q4V7M1X2C3B4N${String(i).padStart(6, "0")}` },
			{ privateKey: gatewayPrivatePem, signVersion: "2.1" },
		),
	),
);

async function serve(role) {
	let providers = {};
	let spans;
	if (role === "recording") {
		const { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } = await import("@opentelemetry/sdk-trace");
		const metrics = await import("@opentelemetry/sdk-metrics");
		spans = new InMemorySpanExporter();
		const reader = new metrics.PeriodicExportingMetricReader({
			exporter: new metrics.InMemoryMetricExporter(metrics.AggregationTemporality.CUMULATIVE),
			exportIntervalMillis: 3_600_000,
		});
		providers = {
			// Batched, as production exports spans; often enough that the queue never drops one.
			tracerProvider: new TracerProvider({
				spanProcessors: [new BatchSpanProcessor({ exporter: spans, scheduledDelayMillis: 200, maxQueueSize: 8192 })],
			}),
			meterProvider: new metrics.MeterProvider({ readers: [reader] }),
		};
	}
	let processed = 0;
	let recorded = 0;
	/** Counts the delivery spans the exporter holds, then forgets them, as a real exporter sends them away. */
	const drain = () => {
		if (!spans) return;
		recorded += spans.getFinishedSpans().filter((span) => span.name === "ipn.handle").length;
		spans.reset();
	};
	setInterval(drain, 1000).unref();
	const handler = createNotificationHandler({
		gatewayPublicKey: gatewayPublicPem,
		// Each delivery a new event, as in notifications.bench.mjs: the whole path runs every time.
		store: createMemoryStore({ ttlMs: 1 }),
		onTransaction: async () => {
			processed++;
		},
		onRefund: async () => {},
		...providers,
	});
	// Telemetry loads a moment after the handler is made; the server listens once it has.
	await new Promise((resolve) => setTimeout(resolve, 100));
	const listener = toNodeListener(handler);
	let served = 0;
	const server = createServer((req, res) => {
		served++;
		listener(req, res);
	});
	server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
	process.on("message", async () => {
		await providers.tracerProvider?.forceFlush();
		drain();
		process.send({ served, processed, recorded });
	});
	process.on("disconnect", () => process.exit(0));
}

async function startServer(role, serverPrefix) {
	const options = {
		env: { ...process.env, IPN_TELEMETRY_BENCH_SERVER: role },
		stdio: ["ignore", "inherit", "inherit", "ipc"],
	};
	const [command, ...prefixArgs] = serverPrefix;
	const child = command
		? spawn(command, [...prefixArgs, process.execPath, fileURLToPath(import.meta.url)], options)
		: fork(new URL(import.meta.url), options);
	const { port } = await new Promise((resolve) => child.once("message", resolve));
	const usage = () =>
		new Promise((resolve) => {
			child.once("message", resolve);
			child.send("usage");
		});
	return { port, usage, stop: () => child.disconnect() };
}

async function load(server, seconds) {
	const before = await server.usage();
	await loadIpnRoute(server.port, bodies, seconds);
	const after = await server.usage();
	const served = after.served - before.served;
	if (after.processed - before.processed !== served) throw new Error("bench setup: deliveries skipped the callback");
	return { rps: served / seconds, served, recorded: after.recorded - before.recorded };
}

async function main() {
	const pin = await pinLoadAndServers();
	const off = await startServer("off", pin.serverPrefix);
	const recording = await startServer("recording", pin.serverPrefix);
	await load(off, 1);
	const warm = await load(recording, 1);
	// Sanity: the recording server records a span per delivery.
	if (warm.recorded !== warm.served)
		throw new Error(`bench setup: ${warm.recorded} spans for ${warm.served} deliveries`);
	const rounds = [];
	for (let round = 0; round < 10; round++) {
		const first = round % 2 === 0 ? off : recording;
		const second = first === off ? recording : off;
		const a = await load(first, 1.5);
		const b = await load(second, 1.5);
		rounds.push(first === off ? { off: a, recording: b } : { off: b, recording: a });
	}
	off.stop();
	recording.stop();
	pin.release();
	const share = median(rounds.map((round) => round.recording.rps / round.off.rps));
	const offRps = median(rounds.map((round) => round.off.rps));
	const recordingRps = median(rounds.map((round) => round.recording.rps));
	// As a ratio of time per request (off's requests per second over recording's): at most 1/0.9.
	report("IPN handler, SDK recording vs off (time per request)", {
		baselineNs: 1e9 / offRps,
		candidateNs: 1e9 / recordingRps,
		ratio: 1 / share,
		goal: 1 / 0.9,
	});
	console.log(
		`    (median round: ${share.toFixed(3)}x the requests per second, goal >= 0.9x; median requests per second ` +
			`${recordingRps.toFixed(0)} recording, ${offRps.toFixed(0)} off; each round: ` +
			`${rounds.map((round) => (round.recording.rps / round.off.rps).toFixed(2)).join(" ")})`,
	);
}

if (ROLE) await serve(ROLE);
else await main();
