import { errorKind, GatewayError } from "./gateway-error.js";

/**
 * The gateway rejected the request's signature or the merchant's credentials:
 * 401, 403, or the gateway's HTTP 500 "Invalid signature with merchantId" answer.
 * The request was refused, so nothing was processed.
 */
export class AuthenticationError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "AuthenticationError";
}
