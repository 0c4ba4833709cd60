import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { VerificationError } from "./verification-error.js";

/**
 * An IPN or callback is not of the documented shape (after, or instead of, its
 * signature check). Says which field and rule, never the content.
 */
export class InvalidNotificationError extends VerificationError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind]: string = "InvalidNotificationError";
	/** Dotted path of the offending field, when one can be named. */
	readonly field: string | undefined;

	constructor(message: string, field?: string, context?: GatewayErrorContext) {
		super(message, context);
		this.field = field;
	}
}
