import { type DeliveryAttempt, formatDuration } from "../../../sandbox/cli-entry.js";

/** The merchant's response to one attempt: acknowledged, or the failure with what came back. */
function responseOf(attempt: DeliveryAttempt): string {
	const { outcome, httpStatus, detail, responseExcerpt } = attempt;
	if (outcome === "acknowledged") return `acknowledged (HTTP ${httpStatus}, returnCode "100")`;
	const body = responseExcerpt === undefined ? "" : ` ${responseExcerpt.replace(/\s+/g, " ")}`;
	const responded = httpStatus === undefined ? "" : `; the merchant's response: HTTP ${httpStatus}${body}`;
	return `${outcome.replace("_", " ")}: ${detail ?? "no detail"}${responded}`;
}

/** When the next retry is due, on the sandbox clock and from the attempt's end; or the attempt that called it off. */
function nextRetryOf(attempt: DeliveryAttempt, calledOffBy: DeliveryAttempt | undefined): string {
	if (attempt.nextAttemptAt !== undefined && calledOffBy !== undefined)
		return `; its retry called off: attempt ${calledOffBy.attempt} was acknowledged`;
	if (attempt.nextAttemptAt !== undefined) {
		const wait = Math.max(0, Date.parse(attempt.nextAttemptAt) - Date.parse(attempt.finishedAt));
		// Whole seconds: the schedule counts from the transaction's start, a few milliseconds before the attempt.
		const shown = wait < 1_000 ? wait : Math.round(wait / 1_000) * 1_000;
		return `; next retry ${attempt.nextAttemptAt} (in ${formatDuration(shown)})`;
	}
	return attempt.outcome === "acknowledged" || attempt.duplicate ? "" : "; no retry left";
}

/**
 * One IPN delivery attempt on one line: the event, where it went, the merchant's response or the failure, and
 * when the next retry is due, or, given `calledOffBy`, the later attempt that made that retry unnecessary. The
 * live log and `sandbox ipn` print it.
 */
export function describeAttempt(attempt: DeliveryAttempt, calledOffBy?: DeliveryAttempt): string {
	const duplicate = attempt.duplicate ? " (duplicate)" : "";
	const head = `${attempt.eventId} -> ${attempt.url}`;
	const retry = nextRetryOf(attempt, calledOffBy);
	return `${head}: ${responseOf(attempt)}, attempt ${attempt.attempt}${duplicate}${retry}`;
}

/**
 * The attempt that called off the retry `attempt` announced: a later attempt of the same notification,
 * acknowledged before that retry was due (a resend), after which the sandbox sends no more retries.
 * Undefined when the retry stands, or ran.
 */
export function retryCalledOffBy(
	attempt: DeliveryAttempt,
	later: readonly DeliveryAttempt[],
): DeliveryAttempt | undefined {
	const due = attempt.nextAttemptAt;
	if (due === undefined) return undefined;
	return later.find(
		(other) =>
			other.deliveryId === attempt.deliveryId &&
			other.outcome === "acknowledged" &&
			!other.duplicate &&
			Date.parse(other.startedAt) < Date.parse(due),
	);
}
