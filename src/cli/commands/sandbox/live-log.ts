import type { SandboxEvent } from "../../../sandbox/cli-entry.js";
import { describeAttempt } from "./delivery-text.js";

/**
 * One line of the sandbox's live log: a request and its status, a status change, or an IPN delivery
 * attempt as it happens (the event, the URL, the merchant's response or the failure, the next retry).
 */
export function formatEvent(event: SandboxEvent, at: Date = new Date()): string {
	const time = at.toISOString().slice(11, 23);
	switch (event.type) {
		case "request":
			return `${time}  ${event.method} ${event.path} -> ${event.status}${event.detail ? ` (${event.detail})` : ""}`;
		case "transaction":
			return `${time}  transaction ${event.transactionId} is ${event.status} (${event.statusCode})`;
		case "refund":
			return `${time}  refund ${event.refundId} is ${event.status} (${event.statusCode})`;
		case "delivery":
			return `${time}  IPN ${describeAttempt(event.attempt)}`;
		case "error":
			return `${time}  sandbox error: ${event.message}`;
	}
}
