import { errorKind, GatewayError } from "./gateway-error.js";

/**
 * The gateway responded with an error: it refused the request (credentials, signature, fields, rate
 * limit, no S2S processor) or could not process it. `status` is the HTTP status of its response. The
 * response arrived and was read, so the outcome is known: read the subclass for what to do next.
 */
export class GatewayRefusalError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind]: string = "GatewayRefusalError";
}
