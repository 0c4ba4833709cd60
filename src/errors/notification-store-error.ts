import { errorKind, GatewayError } from "./gateway-error.js";

/**
 * The notification store (Redis, PostgreSQL) could not be reached or failed.
 * The handler responds to the gateway with a retryable non-100 code and runs no
 * callback without a claim; the driver's error is the `cause`.
 */
export class NotificationStoreError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "NotificationStoreError";
}
