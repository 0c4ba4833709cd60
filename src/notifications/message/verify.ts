import type * as z from "zod/mini";
import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import { MalformedMessageError } from "../../errors/malformed-message-error.js";
import type { LazySchema } from "../../schemas/lazy.js";
import { type Refund, refundSchema, type Transaction, transactionSchema } from "../../schemas/resources.js";
import type { SignedStringForm } from "../../signing/canonical.js";
import type { PublicKeyLike } from "../../signing/keys.js";
import { openVerified } from "../../signing/open.js";
import type { SignVersion } from "../../signing/seal.js";
import { refundEventId, transactionEventId } from "./event-id.js";
import { parseNotification } from "./issues.js";

/** How `verifyNotification` checks an IPN (and `decodeCallback` a callback redirect). */
export interface VerifyNotificationOptions {
	/**
	 * The gateway's public key, or several during a key rotation: any one may verify. Loaded keys or PEM / base64 DER
	 * text.
	 */
	gatewayPublicKey: PublicKeyLike | readonly PublicKeyLike[];
	/**
	 * Signing versions to accept; pin `["2.1"]` once your account is on 2.1 so a 2.0 body is refused. @default ["2.0",
	 * "2.1"]
	 */
	acceptVersions?: readonly SignVersion[] | undefined;
	/**
	 * How a 2.0 message becomes the string its signature covers. Leave it unset: the SDK uses the
	 * gateway's reference form. Set it only for a gateway that signs differently (the signature
	 * doctor, `npx merchant-gateway doctor`, tells which form verifies and what to set here).
	 * @default the gateway's reference form (`canonicalString`)
	 */
	signedString?: SignedStringForm | undefined;
}

interface EventBase {
	/**
	 * Event identity: `transaction:{transactionId}:{status}` or `refund:{refundId}:{status}`. Use it to drop
	 * duplicates.
	 */
	eventId: string;
	/** The signing version the IPN arrived in. */
	signVersion: SignVersion;
}

/** A verified transaction IPN. */
export interface TransactionNotification extends EventBase {
	/** Tells the two kinds of IPN apart. */
	type: "transaction";
	/** The transaction, verified and typed. */
	transaction: Transaction;
}

/** A verified refund IPN. */
export interface RefundNotification extends EventBase {
	/** Tells the two kinds of IPN apart. */
	type: "refund";
	/** The refund, verified and typed. */
	refund: Refund;
}

/** A verified IPN: a transaction's terminal state or a refund's status change. */
export type NotificationEvent = TransactionNotification | RefundNotification;

/**
 * Verifies an IPN and returns its typed content.
 *
 * `body` may be the raw request body (text or bytes) or an object a framework's
 * JSON body parser already made: a 2.0 signature covers the canonical form of the
 * parsed fields and a 2.1 signature covers the `payload` string, which parsing
 * leaves intact, so both verify either way.
 *
 * Order: detect the form (a string `payload` means 2.1), verify against any
 * of the keys, then tell the kind (a refund has `refundId`) and validate the
 * fields. Nothing is returned unless the signature holds.
 *
 * @throws SignatureVerificationError when the signature is missing, malformed, or
 *   matches none of the keys, or the version is not accepted.
 * @throws InvalidNotificationError when the body is not a signed IPN or a field
 *   breaks the documented shape (names the field and the rule, never the value).
 */
export function verifyNotification(body: unknown, options: VerifyNotificationOptions): NotificationEvent {
	return openNotification(body, options).event;
}

/** A verified IPN with what it was read from: its signed fields and the schema they were checked with. */
export interface OpenedNotification {
	event: NotificationEvent;
	/** The signed fields as they arrived (fields the schema does not know included). */
	fields: Record<string, unknown>;
	schema: LazySchema<z.core.$ZodType>;
}

/** @internal {@link verifyNotification}, also returning the signed fields (the handler looks for drift in them). */
export function openNotification(body: unknown, options: VerifyNotificationOptions): OpenedNotification {
	let opened: ReturnType<typeof openVerified>;
	try {
		const { gatewayPublicKey: publicKey, acceptVersions, signedString } = options;
		opened = openVerified(body, { publicKey, acceptVersions, signedString });
	} catch (error) {
		if (error instanceof MalformedMessageError)
			throw new InvalidNotificationError(`Not a signed IPN: ${error.message}`, error.field, { cause: error });
		throw error;
	}
	if (opened.wrapper !== undefined) {
		// IPNs are flat (2.0) or {payload, signVersion, signature} (2.1); a wrapped API response is not an IPN.
		throw new InvalidNotificationError(
			"Not an IPN: the body is a wrapped API response (status, message, data).",
			"data",
		);
	}
	const { fields, signVersion } = opened;
	if (Object.hasOwn(fields, "refundId")) {
		const refund = parseNotification(refundSchema, "refund IPN", fields);
		const eventId = refundEventId(refund.refundId, refund.status);
		return { event: { type: "refund", refund, eventId, signVersion }, fields, schema: refundSchema };
	}
	const transaction = parseNotification(transactionSchema, "transaction IPN", fields);
	const eventId = transactionEventId(transaction.transactionId, transaction.status);
	return { event: { type: "transaction", transaction, eventId, signVersion }, fields, schema: transactionSchema };
}
