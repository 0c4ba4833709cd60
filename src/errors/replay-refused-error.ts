import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { VerificationError } from "./verification-error.js";

/**
 * Why a failed event's record was not replayed:
 * - `unsigned`: the record keeps no signed message (a reconciliation's record, or one written before
 *   records kept the gateway's signed message);
 * - `signature`: its signed message does not verify with the handler's gateway keys (edited, forged,
 *   signed with a key no longer configured, or in a signing version no longer accepted);
 * - `invalid`: its signed message is not a signed IPN of the documented shape;
 * - `other_event`: its signed message verifies, but is another event than the one it is kept under.
 */
export type ReplayRefusalReason = "unsigned" | "signature" | "invalid" | "other_event";

/**
 * A failed event's record was not replayed: its signed message was not verified again as a delivery's
 * is (the reason says why). The callback did not run. Such a record never will be replayed: look at it
 * (`failedEvents.get`), then `discard` it; the gateway's own deliveries and a reconciliation still run
 * the event. The verification's error, when there was one, is the `cause`.
 */
export class ReplayRefusedError extends VerificationError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "ReplayRefusedError";
	/** Why the record was refused. */
	readonly reason: ReplayRefusalReason;

	constructor(reason: ReplayRefusalReason, message: string, context?: GatewayErrorContext) {
		super(message, context);
		this.reason = reason;
	}
}
