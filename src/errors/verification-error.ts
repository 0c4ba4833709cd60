import { errorKind, GatewayError } from "./gateway-error.js";

/**
 * A message from the gateway (a response, an IPN, a callback) failed verification or could not be
 * read: its signature is missing or wrong, or it is malformed, off its documented shape or too large.
 * Nothing in it may be trusted. After a create, the client reports this as the `cause` of an
 * `OutcomeUnknownError`: the gateway may have processed the request all the same.
 */
export class VerificationError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind]: string = "VerificationError";
}
