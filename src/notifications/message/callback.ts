import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import { MalformedMessageError } from "../../errors/malformed-message-error.js";
import { SignatureVerificationError } from "../../errors/signature-verification-error.js";
import { type CallbackResult, callbackResultSchema } from "../../schemas/resources.js";
import { type CallbackInput, openCallbackUrl } from "../../signing/callback-url.js";
import { parseNotification } from "./issues.js";
import type { VerifyNotificationOptions } from "./verify.js";

/** How `decodeCallback` checks the redirect: with the gateway's keys and versions, as an IPN. */
export type DecodeCallbackOptions = VerifyNotificationOptions;

/**
 * Verifies the buyer's redirect to your callbackUrl (2.0 and 2.1) and
 * returns `{ status, transactionId, ref, amount, currency }`.
 *
 * `urlOrQuery` may be the full URL, its query string, `URLSearchParams`, or a
 * framework's parsed query object (`req.query`). Base64, base64url, missing
 * padding and a `+` turned into a space are all accepted.
 *
 * The redirect only tells you where the buyer is: it carries a summary. Use it
 * to choose the page to show, and rely on the IPN (or the transaction query)
 * for the full, authoritative transaction before you fulfil the order.
 *
 * @throws SignatureVerificationError when the signature is missing (the gateway may send the
 *   callback unsigned: `gateway.callbacks.resolve` then confirms it with a verified query) or
 *   matches no key.
 * @throws InvalidNotificationError when the payload is missing, not base64 or
 *   JSON, or a field breaks the documented shape.
 */
export function decodeCallback(urlOrQuery: CallbackInput, options: DecodeCallbackOptions): CallbackResult {
	let fields: Record<string, unknown>;
	try {
		const { gatewayPublicKey: publicKey, acceptVersions, signedString } = options;
		fields = openCallbackUrl(urlOrQuery, { publicKey, acceptVersions, signedString }).fields;
	} catch (error) {
		if (error instanceof SignatureVerificationError && error.reason === "missing_signature") {
			throw new SignatureVerificationError(
				"missing_signature",
				"The callback carries no signature, so nothing in it can be trusted (the gateway may send it unsigned). " +
					"Use gateway.callbacks.resolve(url): it confirms the outcome with a verified transaction query.",
				{ cause: error },
			);
		}
		if (error instanceof MalformedMessageError)
			throw new InvalidNotificationError(`Not a signed callback: ${error.message}`, error.field ?? "payload", {
				cause: error,
			});
		throw error;
	}
	return parseNotification(callbackResultSchema, "callback payload", fields);
}
