import { context, metrics, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { HistogramMetricData, SumMetricData } from "@opentelemetry/sdk-metrics";
import { AlwaysOffSampler, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
	createMemoryStore,
	createNotificationHandler,
	type NotificationHandlerOptions,
	type NotificationStore,
} from "../../src/index.js";
import { MESSAGE_NOT_RECORDED } from "../../src/opentelemetry/described.js";
import { instrumentMerchantGateway } from "../../src/opentelemetry/index.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import {
	deferred,
	gatewayPublicKey,
	ipnRequest,
	merchantPrivateKey,
	refundFields,
	signedBody,
	transactionFields,
	transactionIpn,
} from "../notifications/fixtures.js";
import { AsyncContextManager, pointsWith, type RecordedTelemetry, recordTelemetry } from "../support/otel.js";

// One ipn.handle span per IPN delivery, its steps as child spans, and the IPN metrics, recorded by a real
// OpenTelemetry SDK (in memory) from deliveries to the handler as a Web request handler.

let otel: RecordedTelemetry;
let ids = 0;
/** A transaction id no other delivery of this file uses (each is its own event). */
const nextId = () => `01JTEM${String(++ids).padStart(20, "0")}`;

beforeAll(() => {
	context.setGlobalContextManager(new AsyncContextManager());
});
afterAll(() => context.disable());
beforeEach(() => {
	otel = recordTelemetry();
	otel.instrument();
});
afterEach(() => otel.shutdown());

async function handler(overrides: Partial<NotificationHandlerOptions> = {}) {
	return createNotificationHandler({ gatewayPublicKey, onTransaction: () => {}, onRefund: () => {}, ...overrides });
}
const spanNamed = (name: string, index = 0): ReadableSpan => {
	const span = otel.spans().filter((item) => item.name === name)[index];
	if (!span) throw new Error(`no span ${name} among ${otel.spans().map((item) => item.name)}`);
	return span;
};
/** The steps of a delivery: its events but the drift reports and the exception. */
const stepsOf = (span: ReadableSpan) =>
	span.events.map((event) => event.name).filter((name) => name !== "exception" && name !== "merchant_gateway.drift");
const stepNamed = (span: ReadableSpan, name: string) =>
	span.events.find((event) => event.name === `merchant_gateway.${name}`)?.attributes ?? {};

describe("one ipn.handle span per delivery", () => {
	test("a processed IPN: the event's attributes, its steps as events with durations, its span active in the callback", async () => {
		const id = nextId();
		let activeInCallback: string | undefined;
		const ipn = await handler({
			onTransaction: async () => {
				activeInCallback = (trace.getActiveSpan() as unknown as ReadableSpan | undefined)?.name;
			},
		});
		const response = await ipn(ipnRequest(transactionIpn(id, "2.1")));
		expect(response.status).toBe(200);

		const span = spanNamed("ipn.handle");
		expect(span.kind).toBe(SpanKind.SERVER);
		expect(span.status.code).toBe(SpanStatusCode.UNSET);
		expect(span.attributes).toEqual({
			"http.request.method": "POST",
			"merchant_gateway.operation": "ipn.handle",
			// The event id names the resource in its canonical (lower) case.
			"merchant_gateway.event_id": `transaction:${id.toLowerCase()}:successful`,
			"merchant_gateway.event.kind": "transaction",
			"merchant_gateway.status": "successful",
			"merchant_gateway.sign_version": "2.1",
			"merchant_gateway.transaction_id": id,
			"merchant_gateway.outcome": "processed",
			"http.response.status_code": 200,
			"merchant_gateway.return_code": "100",
		});
		expect(stepsOf(span)).toEqual([
			"merchant_gateway.verify",
			"merchant_gateway.claim",
			"merchant_gateway.callback",
			"merchant_gateway.confirm",
		]);
		expect(stepNamed(span, "claim")["merchant_gateway.claim.result"]).toBe("claimed");
		for (const step of ["verify", "claim", "callback", "confirm"]) {
			expect(stepNamed(span, step)["merchant_gateway.duration_ms"]).toBeGreaterThanOrEqual(0);
		}
		expect(activeInCallback).toBe("ipn.handle");
	});

	test("a refund IPN names its refund; a duplicate is answered from the store, no callback", async () => {
		const fields = { ...refundFields(), refundId: nextId() };
		const ipn = await handler();
		await ipn(ipnRequest(signedBody(fields)));
		await ipn(ipnRequest(signedBody(fields)));
		expect(spanNamed("ipn.handle").attributes).toMatchObject({
			"merchant_gateway.event.kind": "refund",
			"merchant_gateway.refund_id": fields.refundId,
		});
		const again = spanNamed("ipn.handle", 1);
		expect(again.attributes["merchant_gateway.outcome"]).toBe("duplicate");
		expect(stepsOf(again)).toEqual(["merchant_gateway.verify", "merchant_gateway.claim"]);
		expect(stepNamed(again, "claim")["merchant_gateway.claim.result"]).toBe("processed");
	});

	// The last column: the verify step's error type, or null when the delivery was refused before its body was read.
	const refusals: Array<[string, number, string, () => Request, string | null]> = [
		[
			"a forged signature",
			401,
			"signature",
			() => ipnRequest(signedBody(transactionFields(), "2.0", merchantPrivateKey)),
			"SignatureVerificationError",
		],
		["a body that is no JSON", 400, "schema", () => ipnRequest("not json"), "InvalidNotificationError"],
		["a GET", 405, "method", () => new Request("http://127.0.0.1/ipn"), null],
		["a form post", 415, "content_type", () => ipnRequest("a=1", { headers: { "content-type": "text/plain" } }), null],
		[
			"a body over maxBodyBytes",
			413,
			"size",
			() => ipnRequest(`{"padding":"${"x".repeat(70_000)}"}`),
			"InvalidNotificationError",
		],
	];
	test.each(refusals)("%s is refused (HTTP %i), and why: %s", async (_, status, refusal, request, verifyError) => {
		const ipn = await handler();
		const response = await ipn(request());
		expect(response.status).toBe(status);
		const span = spanNamed("ipn.handle");
		expect(span.attributes).toMatchObject({
			"merchant_gateway.outcome": "refused",
			"merchant_gateway.refusal": refusal,
			"http.response.status_code": status,
			"merchant_gateway.return_code": String(status),
		});
		expect(span.attributes["error.type"]).toEqual(expect.any(String));
		// The gateway's request was refused: not a failure of this server.
		expect(span.status.code).toBe(SpanStatusCode.UNSET);
		expect(span.attributes["merchant_gateway.event_id"]).toBeUndefined();
		// A body read and refused has its verify step, with why; one refused by its head has no step at all.
		if (verifyError === null) expect(stepsOf(span)).toEqual([]);
		else {
			expect(stepsOf(span)).toEqual(["merchant_gateway.verify"]);
			expect(stepNamed(span, "verify")).toEqual({
				"merchant_gateway.duration_ms": expect.any(Number),
				"error.type": verifyError,
			});
		}
	});

	test("a callback that throws: ERROR on the delivery, the callback step's error type, the claim released", async () => {
		const ipn = await handler({
			onTransaction: () => {
				throw new TypeError("database is down");
			},
		});
		expect((await ipn(ipnRequest(transactionIpn(nextId())))).status).toBe(500);
		const span = spanNamed("ipn.handle");
		// Your callback's message may say anything about anyone: only its class name is recorded.
		expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: MESSAGE_NOT_RECORDED });
		expect(span.attributes).toMatchObject({ "merchant_gateway.outcome": "callback_failed", "error.type": "TypeError" });
		expect(stepsOf(span)).toEqual([
			"merchant_gateway.verify",
			"merchant_gateway.claim",
			"merchant_gateway.callback",
			"merchant_gateway.release",
		]);
		expect(stepNamed(span, "callback")["error.type"]).toBe("TypeError");
		expect(span.events.filter((event) => event.name === "exception")).toHaveLength(1);
	});

	test("a callback that does not settle in time: timed_out, its step ended by the timeout (driven clock)", async () => {
		const clock = new ControllableClock(Date.UTC(2030, 0, 1));
		const started = deferred();
		const ipn = await handler({
			callbackTimeoutMs: 5_000,
			store: createMemoryStore({ now: () => clock.nowMs() }),
			startTimer: (onExpiry, delayMs) => clock.schedule(clock.nowMs() + delayMs, onExpiry),
			onTransaction: () => {
				started.resolve();
				return new Promise(() => {});
			},
		});
		const pending = ipn(ipnRequest(transactionIpn(nextId())));
		await started.promise;
		clock.advance(5_000);
		expect((await pending).status).toBe(503);
		expect(spanNamed("ipn.handle").attributes).toMatchObject({
			"merchant_gateway.outcome": "timed_out",
			"error.type": "TimeoutError",
		});
		expect(stepNamed(spanNamed("ipn.handle"), "callback")["error.type"]).toBe("TimeoutError");
	});

	test("a store that fails or holds the event elsewhere: store_unavailable, held", async () => {
		const failing: NotificationStore = {
			claim: async () => {
				throw new Error("connection refused");
			},
			confirm: async () => "confirmed" as const,
			release: async () => {},
		};
		const failingIpn = await handler({ store: failing });
		expect((await failingIpn(ipnRequest(transactionIpn(nextId())))).status).toBe(500);
		expect(spanNamed("ipn.handle").attributes["merchant_gateway.outcome"]).toBe("store_unavailable");
		expect(spanNamed("ipn.handle").status.code).toBe(SpanStatusCode.ERROR);
		expect(stepNamed(spanNamed("ipn.handle"), "claim")["error.type"]).toBe("Error");

		const elsewhere: NotificationStore = { ...failing, claim: async () => "in_progress" as const };
		const elsewhereIpn = await handler({ store: elsewhere });
		expect((await elsewhereIpn(ipnRequest(transactionIpn(nextId())))).status).toBe(409);
		expect(spanNamed("ipn.handle", 1).attributes).toMatchObject({ "merchant_gateway.outcome": "held" });
		expect(stepNamed(spanNamed("ipn.handle", 1), "claim")["merchant_gateway.claim.result"]).toBe("in_progress");
	});

	test("a delivery that joins the run of the same event in flight: its own span, marked joined", async () => {
		const release = deferred();
		const ipn = await handler({ onTransaction: () => release.promise });
		const body = transactionIpn(nextId());
		const first = ipn(ipnRequest(body));
		const second = ipn(ipnRequest(body));
		release.resolve();
		expect((await first).status).toBe(200);
		expect((await second).status).toBe(200);
		const spans = otel.spans().filter((span) => span.name === "ipn.handle");
		const outcomes = spans.map((span) => [
			span.attributes["merchant_gateway.outcome"],
			span.attributes["merchant_gateway.joined"],
		]);
		expect(outcomes).toHaveLength(2);
		expect(outcomes).toEqual(
			expect.arrayContaining([
				["processed", true],
				["processed", undefined],
			]),
		);
		const callbacks = spans.flatMap((span) =>
			span.events.filter((event) => event.name === "merchant_gateway.callback"),
		);
		expect(callbacks).toHaveLength(1);
	});
});

test("metrics: deliveries by outcome, callback and claim durations in seconds", async () => {
	const ipn = await handler();
	const body = transactionIpn(nextId());
	await ipn(ipnRequest(body));
	await ipn(ipnRequest(body));
	await ipn(ipnRequest(signedBody(transactionFields(), "2.0", merchantPrivateKey)));
	const recorded = await otel.metrics();

	const deliveries = recorded.get("merchant_gateway.ipn.deliveries") as SumMetricData;
	expect(deliveries.descriptor.unit).toBe("{delivery}");
	const count = (attributes: Record<string, unknown>) =>
		pointsWith(deliveries.dataPoints, attributes).map((point) => point.value);
	expect(count({ "merchant_gateway.outcome": "processed", "merchant_gateway.event.kind": "transaction" })).toEqual([1]);
	expect(count({ "merchant_gateway.outcome": "duplicate" })).toEqual([1]);
	expect(count({ "merchant_gateway.outcome": "refused", "merchant_gateway.refusal": "signature" })).toEqual([1]);

	const callback = recorded.get("merchant_gateway.callback.duration") as HistogramMetricData;
	expect(callback.descriptor.unit).toBe("s");
	expect(pointsWith(callback.dataPoints, { "merchant_gateway.source": "ipn" })[0]?.value.count).toBe(1);
	const claim = recorded.get("merchant_gateway.store.claim.duration") as HistogramMetricData;
	const claims = (result: string) =>
		pointsWith(claim.dataPoints, { "merchant_gateway.claim.result": result })[0]?.value.count;
	expect([claims("claimed"), claims("processed")]).toEqual([1, 1]);
});

test("drift in an IPN: handed to the callback as before, reported once per kind", async () => {
	const warnings: string[] = [];
	const received: string[] = [];
	const ipn = await handler({
		logger: { warn: (message: string) => warnings.push(message) },
		onTransaction: (transaction) => {
			received.push(transaction.status);
		},
	});
	const drifted = (id: string) =>
		signedBody({ ...transactionFields(), transactionId: id, status: "chargeback_lost", statusCode: 40, riskScore: 3 });
	expect((await ipn(ipnRequest(drifted(nextId())))).status).toBe(200);
	expect((await ipn(ipnRequest(drifted(nextId())))).status).toBe(200);
	expect(received).toEqual(["chargeback_lost", "chargeback_lost"]);
	expect(warnings).toHaveLength(3);
	expect(warnings.join("\n")).toContain("(ipn.handle)");
	const events = spanNamed("ipn.handle").events.filter((event) => event.name === "merchant_gateway.drift");
	expect(events.map((event) => event.attributes?.["merchant_gateway.drift.value"])).toEqual([
		"chargeback_lost",
		"40",
		"riskScore",
	]);
	const again = spanNamed("ipn.handle", 1).events.filter((event) => event.name === "merchant_gateway.drift");
	expect(again).toEqual([]);
	const reports = (await otel.metrics()).get("merchant_gateway.drift.reports") as SumMetricData;
	expect(reports.dataPoints.map((point) => point.attributes["merchant_gateway.drift.source"])).toEqual([
		"ipn.handle",
		"ipn.handle",
		"ipn.handle",
	]);
});

describe("every delivery recorded, from the first one", () => {
	afterEach(() => {
		trace.disable();
		metrics.disable();
	});

	test("cold start: global providers registered, a handler made and called at once, a span for every delivery", async () => {
		const global = recordTelemetry();
		trace.setGlobalTracerProvider(global.tracerProvider);
		metrics.setGlobalMeterProvider(global.meterProvider);
		const { disable } = instrumentMerchantGateway();
		try {
			const ipn = createNotificationHandler({ gatewayPublicKey, onTransaction: () => {}, onRefund: () => {} });
			const responses = await Promise.all([1, 2, 3].map(() => ipn(ipnRequest(transactionIpn(nextId())))));
			expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
			const spans = global.spans().filter((span) => span.name === "ipn.handle");
			expect(spans.map((span) => span.attributes["merchant_gateway.outcome"])).toEqual([
				"processed",
				"processed",
				"processed",
			]);
			const deliveries = (await global.metrics()).get("merchant_gateway.ipn.deliveries") as SumMetricData;
			expect(deliveries.dataPoints.map((point) => point.value)).toEqual([3]);
		} finally {
			disable();
			await global.shutdown();
		}
	});
});

test("a replay (failedEvents.retry): an ipn.replay span with its steps, and a point on merchant_gateway.ipn.replays", async () => {
	let failing = true;
	const ipn = await handler({
		store: createMemoryStore(),
		onTransaction: () => {
			if (failing) throw new TypeError("database is down");
		},
	});
	const id = nextId();
	expect((await ipn(ipnRequest(transactionIpn(id)))).status).toBe(500);
	const eventId = `transaction:${id.toLowerCase()}:successful`;
	expect(await ipn.failedEvents.retry(eventId)).toMatchObject({ result: "failed", attempts: 2 });
	failing = false;
	expect(await ipn.failedEvents.retry(eventId)).toEqual({ eventId, result: "processed" });
	expect(await ipn.failedEvents.retry("transaction:none:successful")).toMatchObject({ result: "not_found" });

	const [failed, processed, notFound] = otel.spans().filter((span) => span.name === "ipn.replay");
	expect(failed?.attributes).toMatchObject({
		"merchant_gateway.outcome": "failed",
		"merchant_gateway.event_id": eventId,
		"merchant_gateway.event.kind": "transaction",
		"merchant_gateway.attempts": 2,
		"error.type": "TypeError",
	});
	expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
	expect(stepsOf(failed as ReadableSpan)).toEqual([
		"merchant_gateway.claim",
		"merchant_gateway.callback",
		"merchant_gateway.release",
	]);
	expect(processed?.attributes["merchant_gateway.outcome"]).toBe("processed");
	expect(stepsOf(processed as ReadableSpan)).toEqual([
		"merchant_gateway.claim",
		"merchant_gateway.callback",
		"merchant_gateway.confirm",
	]);
	expect(notFound?.attributes["merchant_gateway.outcome"]).toBe("not_found");

	const replays = (await otel.metrics()).get("merchant_gateway.ipn.replays") as SumMetricData;
	expect(replays.descriptor.unit).toBe("{replay}");
	const count = (outcome: string) =>
		pointsWith(replays.dataPoints, { "merchant_gateway.outcome": outcome }).map((point) => point.value);
	expect([count("failed"), count("processed"), count("not_found")]).toEqual([[1], [1], [1]]);
	const callbacks = (await otel.metrics()).get("merchant_gateway.callback.duration") as HistogramMetricData;
	expect(pointsWith(callbacks.dataPoints, { "merchant_gateway.source": "replay" }).length).toBeGreaterThan(0);
});

test("drift is counted when no trace is sampled", async () => {
	const unsampled = recordTelemetry("sdk-trace", new AlwaysOffSampler());
	unsampled.instrument();
	try {
		const ipn = await handler();
		const body = signedBody({
			...transactionFields(),
			transactionId: nextId(),
			status: "chargeback_reversed",
			statusCode: 41,
		});
		expect((await ipn(ipnRequest(body))).status).toBe(200);
		expect(unsampled.spans()).toEqual([]);
		const reports = (await unsampled.metrics()).get("merchant_gateway.drift.reports") as SumMetricData;
		expect(reports.dataPoints.map((point) => [point.attributes["merchant_gateway.drift.value"], point.value])).toEqual([
			["chargeback_reversed", 1],
			["41", 1],
		]);
	} finally {
		await unsampled.shutdown();
	}
});
