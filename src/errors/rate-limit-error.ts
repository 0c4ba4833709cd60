import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { GatewayRefusalError } from "./gateway-refusal-error.js";

/** The gateway responded 429 and retries (if allowed) did not get through. */
export class RateLimitError extends GatewayRefusalError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "RateLimitError";
	/** Seconds the gateway asked to wait (Retry-After), when it said. */
	readonly retryAfterSeconds: number | undefined;

	constructor(message: string, retryAfterSeconds: number | undefined, context: GatewayErrorContext) {
		super(message, context);
		this.retryAfterSeconds = retryAfterSeconds;
	}
}
