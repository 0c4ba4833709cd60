import { errorKind, GatewayError } from "./gateway-error.js";

/**
 * Something given to the SDK is wrong: a client or handler option, a request parameter, a key, the
 * crypto backend chosen. Nothing was sent. Fix the call: trying it again unchanged fails the same way.
 */
export class InvalidInputError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind]: string = "InvalidInputError";
}
