import type { OpenedNotification } from "../notifications/verify.js";
import { findDrift } from "../schemas/drift.js";
import type { TelemetryRedaction } from "./described.js";
import { driftWarning, firstReports } from "./drift.js";
import type { DeliveryRecord } from "./ipn.js";

// Drift in IPNs, loaded by the handler only when something listens: a logger, or telemetry.

/** Reports the drift in a verified IPN, each kind once per process: the logger, the span, the counter. */
export function ipnDrift(source: string, redaction: TelemetryRedaction, warn: (message: string) => void) {
	return (opened: OpenedNotification, record: DeliveryRecord): void => {
		const drifts = findDrift(opened.schema.get(), opened.fields);
		if (drifts.length === 0) return;
		for (const report of firstReports(source, drifts, redaction.text)) {
			warn(driftWarning(report));
			record.drift(report);
		}
	};
}
