import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { VerificationError } from "./verification-error.js";

/**
 * The gateway's response grew past the client's `maxResponseBytes` (counted after
 * decompression), so the client stopped reading it. On a create it is the
 * `cause` of an `OutcomeUnknownError`: the request may have been processed.
 */
export class ResponseTooLargeError extends VerificationError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "ResponseTooLargeError";
	/** The limit that was passed, in bytes (`maxResponseBytes`). */
	readonly limitBytes: number;

	constructor(limitBytes: number, context: GatewayErrorContext) {
		const limit = `maxResponseBytes (${limitBytes} bytes after decompression)`;
		super(`The gateway's response is larger than ${limit}; reading stopped there.`, context);
		this.limitBytes = limitBytes;
	}
}
