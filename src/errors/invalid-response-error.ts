import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { VerificationError } from "./verification-error.js";

/** The gateway's response was not JSON, or not of the documented shape. */
export class InvalidResponseError extends VerificationError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "InvalidResponseError";
	/** A short, redacted start of the body, for debugging. */
	readonly excerpt: string | undefined;

	constructor(message: string, excerpt: string | undefined, context: GatewayErrorContext) {
		super(message, context);
		this.excerpt = excerpt;
	}
}
