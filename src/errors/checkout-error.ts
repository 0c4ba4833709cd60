import { errorKind, GatewayError } from "./gateway-error.js";

/** The gateway answered a checkout creation with `status: "error"` (no transaction, no link). */
export class CheckoutError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "CheckoutError";
}
