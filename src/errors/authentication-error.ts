import { errorKind, GatewayError } from "./gateway-error.js";

/** The gateway rejected the request's signature or the merchant's credentials (401 or 403). */
export class AuthenticationError extends GatewayError {
	static override readonly [errorKind] = "AuthenticationError";
}
