import { errorKind } from "./gateway-error.js";
import { GatewayRefusalError } from "./gateway-refusal-error.js";

/** The gateway responded to a checkout creation with `status: "error"` (no transaction, no link). */
export class CheckoutError extends GatewayRefusalError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "CheckoutError";
}
