import type { Refund } from "../../schemas/resources.js";
import type { SandboxTransaction } from "../core/views.js";
import type { DeliveryAttempt } from "../wire/notifier.js";

/** A transaction as the control API lists it: the sandbox's view of it and its refunds, oldest first. */
export type ControlTransaction = SandboxTransaction & {
	/** Its refunds as the refund query shows them, held ones (`refund_under_review`) included. */
	readonly refunds: readonly Refund[];
};

/** A refund approved or rejected, and the first attempt to deliver the IPN that followed. */
export interface RefundDecisionResult {
	/** The refund as it is now: `refund_successful` or `refund_failed`. */
	refund: Refund;
	/** The first delivery attempt of its IPN, with the merchant's response. */
	delivery: DeliveryAttempt | undefined;
}

/** The sandbox clock after a move, and what ran because of it. */
export interface ClockMove {
	/** The sandbox's time now (ISO 8601). */
	now: string;
	/** The IPN delivery attempts made while the clock moved: retries that fell due, IPNs of expired sessions. */
	deliveries: DeliveryAttempt[];
}

/** The prefix of every control API path. */
export const CONTROL_PATH = "/control";
