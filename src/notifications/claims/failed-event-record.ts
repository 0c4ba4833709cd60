// What a failed run leaves in the store, written and read in one place: the verified event as text
// (so a replay needs no gateway) and the error as its class name and redacted message.
import { NotificationStoreError } from "../../errors/notification-store-error.js";
import { redactText } from "../../internal/redact.js";
import { type NotificationEvent, readEvent } from "../message/verify.js";

/** The longest error text kept: a message, not a dump. */
const MAX_ERROR_LENGTH = 1000;

/** The error's class (and its `name` when that says more, as a DOMException's does). */
function errorLabel(error: object): string {
	const className = (error as { constructor?: { name?: unknown } }).constructor?.name;
	const name = (error as { name?: unknown }).name;
	const label = typeof className === "string" && className !== "" ? className : "Error";
	return typeof name === "string" && name !== "" && name !== label && name !== "Error" ? `${label} (${name})` : label;
}

/** `ClassName: message`, redacted and cut short; never the stack, which can hold values. */
export function describeFailure(error: unknown): string {
	const text =
		typeof error === "object" && error !== null
			? `${errorLabel(error)}: ${String((error as { message?: unknown }).message ?? "")}`
			: `${typeof error}: ${String(error)}`;
	const redacted = redactText(text);
	return redacted.length <= MAX_ERROR_LENGTH ? redacted : `${redacted.slice(0, MAX_ERROR_LENGTH - 1)}…`;
}

/** The verified event as the store keeps it. */
export function eventMessage(event: NotificationEvent): string {
	return event.type === "transaction"
		? JSON.stringify({ type: "transaction", signVersion: event.signVersion, transaction: event.transaction })
		: JSON.stringify({ type: "refund", signVersion: event.signVersion, refund: event.refund });
}

/**
 * The event a stored message holds, checked again against the resource's schema and against the id it
 * is kept under (a store edited by hand, or another application's, must not run the wrong callback).
 * @throws NotificationStoreError naming what does not hold.
 */
export function eventFromMessage(eventId: string, message: string): NotificationEvent {
	const fail = (why: string) =>
		new NotificationStoreError(`The failed event ${eventId}'s stored message ${why}; it cannot be replayed.`);
	let stored: { type?: unknown; signVersion?: unknown; transaction?: unknown; refund?: unknown };
	try {
		stored = JSON.parse(message);
	} catch {
		throw fail("is not JSON");
	}
	const { signVersion } = stored ?? {};
	if (signVersion !== "2.0" && signVersion !== "2.1") throw fail('has no signVersion "2.0" or "2.1"');
	if (stored.type !== "transaction" && stored.type !== "refund") throw fail('has no type "transaction" or "refund"');
	const { event } = readEvent(stored.type, stored[stored.type], signVersion);
	if (event === undefined) throw fail(`holds no valid ${stored.type}`);
	if (event.eventId !== eventId) throw fail(`is the event ${event.eventId}`);
	return event;
}
