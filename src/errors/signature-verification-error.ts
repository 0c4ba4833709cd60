import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { VerificationError } from "./verification-error.js";

/** Why a signed message was not trusted. */
export type SignatureFailureReason = "missing_signature" | "malformed_signature" | "mismatch" | "version_not_accepted";

/**
 * A signature is missing, malformed or does not match any of the given public
 * keys. Nothing in the message may be trusted.
 */
export class SignatureVerificationError extends VerificationError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "SignatureVerificationError";
	/** Why the signature was refused. */
	readonly reason: SignatureFailureReason;

	constructor(reason: SignatureFailureReason, message: string, context?: GatewayErrorContext) {
		super(message, context);
		this.reason = reason;
	}
}
