import type { Attributes } from "@opentelemetry/api";
import type { NotificationEvent } from "../notifications/message/verify.js";
import type { DriftReport } from "../schemas/drift-reports.js";
import { STATUS_CODES } from "../statuses/catalogue.js";
import { ATTRIBUTES } from "./names.js";

// What an attribute may carry: a value from a closed set, or an identifier of its documented shape. Anything
// else (a signed IPN may carry any text the gateway put in it, a card number or an email included) is
// replaced by OTHER, as OpenTelemetry's conventions replace a value outside their set.

/** What stands for a value that is neither in the attribute's set nor of its shape. */
export const OTHER = "_OTHER";

/** A gateway id: a ULID (26 characters of Crockford base32), as the API documents them. */
const GATEWAY_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;
/** A status the catalogue does not know, as the gateway's statuses are written: lower snake case. */
const STATUS_SHAPE = /^[a-z][a-z0-9_]{0,63}$/;
const STATUS_CODE_SHAPE = /^\d{1,6}$/;
/** A field's path, as drift names it: names joined by dots, an array's items by `[]`. */
const FIELD_PATH = /^[A-Za-z_$][\w$]{0,63}(\[\])?(\.[A-Za-z_$][\w$]{0,63}(\[\])?)*$/;
/** An error's class name. */
const CLASS_NAME = /^[A-Za-z_$][\w$]{0,99}$/;

/** A status of the catalogue, as it is; any other: OTHER. */
export function statusValue(status: unknown): string {
	return typeof status === "string" && Object.hasOwn(STATUS_CODES, status) ? status : OTHER;
}

/** A gateway id (a ULID), as it is; anything else: OTHER. */
export function idValue(id: unknown): string {
	return typeof id === "string" && GATEWAY_ID.test(id) ? id : OTHER;
}

/** An event id (`transaction:{id}:{status}`, `refund:{id}:{status}`), with each part checked as above. */
export function eventIdValue(eventId: string): string {
	const first = eventId.indexOf(":");
	const last = eventId.lastIndexOf(":");
	const kind = eventId.slice(0, first);
	if (first < 0 || last === first || (kind !== "transaction" && kind !== "refund")) return OTHER;
	return `${kind}:${idValue(eventId.slice(first + 1, last))}:${statusValue(eventId.slice(last + 1))}`;
}

/** A verified event's attributes: its id, status, signing version and the ids of its resource. */
export function eventAttributes(event: NotificationEvent): Attributes {
	const resource = event.type === "transaction" ? event.transaction : event.refund;
	const attributes: Attributes = {
		[ATTRIBUTES.eventId]: eventIdValue(event.eventId),
		[ATTRIBUTES.status]: statusValue(resource.status),
		[ATTRIBUTES.signVersion]: event.signVersion,
		[ATTRIBUTES.transactionId]: idValue(resource.transactionId),
	};
	if (event.type === "refund") attributes[ATTRIBUTES.refundId] = idValue(event.refund.refundId);
	return attributes;
}

/** An error's class name, when it is one; OTHER for anything else (a thrown non-error, a crafted name). */
export function classNameValue(name: unknown): string {
	return typeof name === "string" && CLASS_NAME.test(name) ? name : OTHER;
}

const DRIFT_SHAPES: Record<DriftReport["type"], RegExp> = {
	unknown_status: STATUS_SHAPE,
	unknown_status_code: STATUS_CODE_SHAPE,
	unknown_field: FIELD_PATH,
};

/** A drift's value when it has the shape of what drifted (a status, a code, a field's path); else OTHER. */
export function driftValue(report: DriftReport): string {
	return DRIFT_SHAPES[report.type].test(report.value) ? report.value : OTHER;
}
