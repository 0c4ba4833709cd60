import { type Counter, type Histogram, type Meter, ValueType } from "@opentelemetry/api";
import { DURATION_BUCKETS, METRICS } from "./names.js";

/** A counter of whole things, `unit` naming them (`{call}`). */
function counter(meter: Meter, name: string, unit: string, description: string): Counter {
	return meter.createCounter(name, { unit, valueType: ValueType.INT, description });
}

/** A histogram of durations in seconds, on the buckets of {@link DURATION_BUCKETS}. */
function durations(meter: Meter, name: string, description: string): Histogram {
	return meter.createHistogram(name, {
		unit: "s",
		description,
		advice: { explicitBucketBoundaries: DURATION_BUCKETS },
	});
}

/** The drift counter, shared by every component that receives signed messages. */
function driftCounter(meter: Meter): Counter {
	const description =
		"Signed messages that carry a status, status code or field the SDK does not know (once per kind).";
	return counter(meter, METRICS.driftReports, "{report}", description);
}

/** The client's metrics. */
export function defineClientInstruments(meter: Meter) {
	return {
		calls: counter(meter, METRICS.clientCalls, "{call}", "Calls to the gateway, by operation and outcome."),
		duration: durations(
			meter,
			METRICS.clientCallDuration,
			"Duration of calls to the gateway (validation, signing, every attempt, verification).",
		),
		drift: driftCounter(meter),
	};
}

/** The metrics of the IPN handler, the replays and the reconciler. */
export function defineEventInstruments(meter: Meter) {
	return {
		deliveries: counter(meter, METRICS.ipnDeliveries, "{delivery}", "IPN deliveries, by outcome."),
		reconciled: counter(meter, METRICS.reconciledEvents, "{event}", "Transactions and refunds reconciled, by result."),
		replays: counter(meter, METRICS.replays, "{replay}", "Replays of failed events (failedEvents.retry), by result."),
		callbackDuration: durations(
			meter,
			METRICS.callbackDuration,
			"How long onTransaction / onRefund ran, until it settled or the SDK stopped waiting.",
		),
		claimDuration: durations(meter, METRICS.claimDuration, "How long the notification store took to answer a claim."),
		drift: driftCounter(meter),
	};
}

export type ClientInstruments = ReturnType<typeof defineClientInstruments>;
export type EventInstruments = ReturnType<typeof defineEventInstruments>;
