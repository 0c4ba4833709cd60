import { errorKind, GatewayError, type GatewayErrorContext } from "./gateway-error.js";

/**
 * A create request (checkout, card charge, refund) may have reached the gateway
 * but no usable response came back, so whether it took effect is unknown: no
 * response at all (timeout, reset, abort after sending, a proxy's 502/503/504), or
 * a response that could not be verified or read (wrong `signVersion` or
 * `gatewayPublicKey`, bad signature, malformed or oversized body; `cause` says
 * which). It is never retried automatically: the gateway has no idempotency key
 * and a retry could charge or refund twice. Reconcile first: wait for the IPN,
 * or query the transaction (`transactionId`, for refunds) and look for `orderRef`.
 */
export class OutcomeUnknownError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "OutcomeUnknownError";
	/** The orderRef sent, when the request had one (checkout, card charge). */
	readonly orderRef: string | undefined;
	/** The transaction concerned, when the request named one (refund). */
	readonly transactionId: string | undefined;

	/**
	 * @param circumstance why the outcome is unknown, as in "no response came back" (the default) or
	 * "its response arrived but its signature matches none of the keys in gatewayPublicKey".
	 */
	constructor(
		what: string,
		ids: { orderRef?: string | undefined; transactionId?: string | undefined },
		context: GatewayErrorContext,
		circumstance = "no response came back",
	) {
		const id = ids.orderRef
			? `orderRef ${ids.orderRef}`
			: ids.transactionId
				? `transaction ${ids.transactionId}`
				: "the request";
		const notRetried = "It was not retried (a retry could charge or refund twice).";
		const reconcile = `Reconcile ${id}: wait for its IPN or query the transaction before trying again.`;
		super(`${what} may or may not have been processed: ${circumstance}. ${notRetried} ${reconcile}`, context);
		this.orderRef = ids.orderRef;
		this.transactionId = ids.transactionId;
	}
}
