import { redactForTelemetry } from "../internal/redact.js";
import type { Drift } from "./drift.js";

/** Every kind of drift this process has reported: each is reported once. */
const reported = new Set<string>();
/** Past this many kinds a process stops reporting new ones: a gateway sending noise cannot grow memory. */
const MAX_KINDS = 256;
/** Values longer than this are cut (a status or a field path is short; anything longer is not worth keeping). */
const MAX_VALUE_LENGTH = 100;

/** One drift as it is reported: where it was seen and what, redacted and cut to a sane length. */
export interface DriftReport extends Drift {
	/** The operation that received the message: `transactions.retrieve`, `ipn.handle`... */
	source: string;
}

/**
 * The drifts of one message that this process has not reported yet, remembered as reported. A kind is its
 * source, type and value: a new status is reported once however many messages carry it. Values are redacted
 * as telemetry's text is (card numbers masked, emails removed): the logger and every instrumentation see them so.
 */
export function firstReports(source: string, drifts: readonly Drift[]): DriftReport[] {
	const fresh: DriftReport[] = [];
	for (const drift of drifts) {
		const value = redactForTelemetry(drift.value).slice(0, MAX_VALUE_LENGTH);
		const kind = `${source}\u0000${drift.type}\u0000${value}`;
		if (reported.has(kind) || reported.size >= MAX_KINDS) continue;
		reported.add(kind);
		fresh.push({ source, type: drift.type, value });
	}
	return fresh;
}

const WHAT: Record<Drift["type"], string> = {
	unknown_status: "a status outside the catalogue",
	unknown_status_code: "a status code outside the catalogue",
	unknown_field: "a field the SDK does not know",
};

/** The logger's warning for a drift: what arrived, and that the message was handed over all the same. */
export function driftWarning(report: DriftReport): string {
	return (
		`The gateway's signed message (${report.source}) carries ${WHAT[report.type]}: ${JSON.stringify(report.value)}. ` +
		"It was accepted as usual; this is reported once per process. Check the SDK for an update."
	);
}
