import { errorKind } from "./gateway-error.js";
import { GatewayRefusalError } from "./gateway-refusal-error.js";

/**
 * The gateway rejected the request's signature or the merchant's credentials:
 * 401, 403, or the gateway's HTTP 500 "Invalid signature with merchantId" response.
 * The request was refused, so nothing was processed.
 */
export class AuthenticationError extends GatewayRefusalError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "AuthenticationError";
}
