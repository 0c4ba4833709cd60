import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { VerificationError } from "./verification-error.js";

/**
 * A signed message is not of any form the protocol allows: not a JSON object,
 * a `payload` that is not JSON text, a value of the wrong type. The message says
 * which field and which rule, and never quotes the content.
 */
export class MalformedMessageError extends VerificationError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "MalformedMessageError";
	/** Dotted path of the offending field, when one can be named. */
	readonly field: string | undefined;

	constructor(message: string, field?: string, context?: GatewayErrorContext) {
		super(message, context);
		this.field = field;
	}
}
