// What a failed run leaves in the store (an `EventFailure`'s message and error), written and read in one place.
import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import { type ReplayRefusalReason, ReplayRefusedError } from "../../errors/replay-refused-error.js";
import { SignatureVerificationError } from "../../errors/signature-verification-error.js";
import { isPlainObject } from "../../internal/plain-object.js";
import { redactText } from "../../internal/redact.js";
import { utf8Decode } from "../../signing/encoding.js";
import { type NotificationEvent, openNotification, type VerifyNotificationOptions } from "../message/verify.js";

/** The longest error text kept: a message, not a dump. */
const MAX_ERROR_LENGTH = 1000;
/**
 * How much text past that limit a long error's redaction reads: more than the longest secret the redaction
 * recognises only whole (a key's base64, from 900 characters; a URL's password; a card number and its spaces).
 */
const REDACTION_MARGIN = 1024;

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
	if (text.length <= MAX_ERROR_LENGTH + 2 * REDACTION_MARGIN) {
		const redacted = redactText(text);
		return redacted.length <= MAX_ERROR_LENGTH ? redacted : `${redacted.slice(0, MAX_ERROR_LENGTH - 1)}…`;
	}
	// Redacting all of a long text takes seconds (a megabyte of digits); only its start can be shown. A secret
	// the cut goes through may no longer be recognised, and a redaction before it (a key) can shorten the text
	// enough to bring it into view: only what the text redacts to, cut at two places a margin apart, agrees on
	// is kept, which ends before anything either cut changed.
	const shorter = redactText(text.slice(0, MAX_ERROR_LENGTH + REDACTION_MARGIN));
	const longer = redactText(text.slice(0, MAX_ERROR_LENGTH + 2 * REDACTION_MARGIN));
	let agreed = 0;
	while (agreed < MAX_ERROR_LENGTH - 1 && agreed < shorter.length && shorter[agreed] === longer[agreed]) agreed++;
	return `${shorter.slice(0, agreed)}…`;
}

/**
 * A delivery's record: its body exactly as received (bytes as their UTF-8 text, which verified), or the
 * object a body parser made of it. Nothing else: the event is read from it again when it is replayed.
 */
export function signedMessage(body: unknown): string {
	return JSON.stringify({ signed: body instanceof Uint8Array ? utf8Decode(body) : body });
}

/** The refusal of a record: what is wrong with it, then the verification's own words (redacted). */
function refused(reason: ReplayRefusalReason, what: string, cause?: Error): ReplayRefusedError {
	const message = `The failed event's ${what}; it is not replayed.${cause ? ` ${cause.message}` : ""}`;
	return new ReplayRefusedError(reason, redactText(message), cause && { cause });
}

/**
 * The event a record's signed message holds, verified again with `options` exactly as a delivery is,
 * and checked against the id the record is kept under: what the store holds is trusted no further than
 * its signature (anyone who can write to the store could have written it).
 * @throws ReplayRefusedError naming why the record is refused (never a value from it).
 */
export function replayedEvent(eventId: string, message: string, options: VerifyNotificationOptions): NotificationEvent {
	let signed: unknown;
	try {
		signed = (JSON.parse(message) as { signed?: unknown } | null)?.signed;
	} catch {}
	if (typeof signed !== "string" && !isPlainObject(signed)) {
		throw refused("unsigned", "record keeps no signed message (a reconciliation's, or one kept before records had it)");
	}
	let event: NotificationEvent;
	try {
		event = openNotification(signed, options).event;
	} catch (error) {
		if (error instanceof SignatureVerificationError)
			throw refused("signature", "signed message does not verify", error);
		if (error instanceof InvalidNotificationError) throw refused("invalid", "signed message is not a valid IPN", error);
		throw error;
	}
	if (event.eventId !== eventId) {
		throw refused("other_event", "signed message verifies, but is another event than its record is kept under");
	}
	return event;
}
