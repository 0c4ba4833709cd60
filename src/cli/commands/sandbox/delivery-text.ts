import { type DeliveryAttempt, formatDuration } from "../../../sandbox/cli-entry.js";

/** The merchant's response to one attempt: acknowledged, or the failure with what came back. */
function responseOf(attempt: DeliveryAttempt): string {
	const { outcome, httpStatus, detail, responseExcerpt } = attempt;
	if (outcome === "acknowledged") return `acknowledged (HTTP ${httpStatus}, returnCode "100")`;
	const body = responseExcerpt === undefined ? "" : ` ${responseExcerpt.replace(/\s+/g, " ")}`;
	const responded = httpStatus === undefined ? "" : `; the merchant's response: HTTP ${httpStatus}${body}`;
	return `${outcome.replace("_", " ")}: ${detail ?? "no detail"}${responded}`;
}

/** When the next retry is due, on the sandbox clock and from the attempt's end. */
function nextRetryOf(attempt: DeliveryAttempt): string {
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
 * when the next retry is due. The live log and `sandbox ipn` print it.
 */
export function describeAttempt(attempt: DeliveryAttempt): string {
	const duplicate = attempt.duplicate ? " (duplicate)" : "";
	const head = `${attempt.eventId} -> ${attempt.url}`;
	return `${head}: ${responseOf(attempt)}, attempt ${attempt.attempt}${duplicate}${nextRetryOf(attempt)}`;
}
