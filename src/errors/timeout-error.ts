import { errorKind, GatewayError } from "./gateway-error.js";

/** No answer within the timeout (on a query endpoint, so nothing was created). */
export class TimeoutError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "TimeoutError";
}
