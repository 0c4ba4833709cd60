import { ConnectionError } from "./connection-error.js";
import { errorKind } from "./gateway-error.js";

/**
 * The gateway did not respond within `timeoutMs`: a connection problem, so also a `ConnectionError`.
 * Thrown as is by queries (after their retries); after a create it is the `cause` of an
 * `OutcomeUnknownError`, since the gateway may have processed the request.
 */
export class TimeoutError extends ConnectionError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "TimeoutError";
}
