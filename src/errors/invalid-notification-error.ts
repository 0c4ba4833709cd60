import { errorKind, GatewayError, type GatewayErrorContext } from "./gateway-error.js";

/**
 * An IPN or callback is not of the documented shape (after, or instead of, its
 * signature check). Says which field and rule, never the content.
 */
export class InvalidNotificationError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "InvalidNotificationError";
	/** Dotted path of the offending field, when one can be named. */
	readonly field: string | undefined;

	constructor(message: string, field?: string, context?: GatewayErrorContext) {
		super(message, context);
		this.field = field;
	}
}
