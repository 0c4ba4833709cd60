import { errorKind, GatewayError } from "./gateway-error.js";

/** No answer within the timeout (on a query endpoint, so nothing was created). */
export class TimeoutError extends GatewayError {
	static override readonly [errorKind] = "TimeoutError";
}
