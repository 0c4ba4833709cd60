import type { SandboxEvent } from "../../../sandbox/core/sandbox-options.js";

/** One line of the sandbox's live log. */
export function formatEvent(event: SandboxEvent): string {
	const time = new Date().toISOString().slice(11, 23);
	switch (event.type) {
		case "request":
			return `${time}  ${event.method} ${event.path} -> ${event.status}${event.detail ? ` (${event.detail})` : ""}`;
		case "transaction":
			return `${time}  transaction ${event.transactionId} is ${event.status} (${event.statusCode})`;
		case "refund":
			return `${time}  refund ${event.refundId} is ${event.status} (${event.statusCode})`;
		case "delivery": {
			const a = event.attempt;
			const next = a.nextAttemptAt ? `, retry at ${a.nextAttemptAt}` : "";
			const detail = a.detail ? ` (${a.detail})` : "";
			const duplicate = a.duplicate ? " (duplicate)" : "";
			return `${time}  IPN ${a.eventId} -> ${a.url}: ${a.outcome}${detail}, attempt ${a.attempt}${duplicate}${next}`;
		}
		case "error":
			return `${time}  sandbox error: ${event.message}`;
	}
}
