import { errorKind, GatewayError } from "./gateway-error.js";

/**
 * No response came back from the gateway: the request could not be sent (DNS, refused connection,
 * TLS), the connection broke, or the response did not come in time (`TimeoutError`). On a query
 * nothing changed, so it can be tried again. A create is reported this way only when it was certainly
 * not sent; a create that may have been sent is an `OutcomeUnknownError` with this error as `cause`.
 */
export class ConnectionError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind]: string = "ConnectionError";
}
