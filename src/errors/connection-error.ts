import { errorKind, GatewayError } from "./gateway-error.js";

/** The request could not reach the gateway (DNS, refused or reset connection, TLS). */
export class ConnectionError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "ConnectionError";
}
