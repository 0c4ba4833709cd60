import { errorKind, GatewayError, type GatewayErrorContext } from "./gateway-error.js";

/**
 * A create request (checkout, card charge, refund) may have reached the gateway
 * but no answer came back, so whether it took effect is unknown. It is never
 * retried automatically: the gateway has no idempotency key and a retry could
 * charge or refund twice. Reconcile first: wait for the IPN, or query the
 * transaction (`transactionId`, for refunds) and look for `orderRef`.
 */
export class OutcomeUnknownError extends GatewayError {
	static override readonly [errorKind] = "OutcomeUnknownError";
	/** The orderRef sent, when the request had one (checkout, card charge). */
	readonly orderRef: string | undefined;
	/** The transaction concerned, when the request named one (refund). */
	readonly transactionId: string | undefined;

	constructor(what: string, ids: { orderRef?: string | undefined; transactionId?: string | undefined }, context: GatewayErrorContext) {
		const id = ids.orderRef ? `orderRef ${ids.orderRef}` : ids.transactionId ? `transaction ${ids.transactionId}` : "the request";
		super(
			`${what} may or may not have been processed: no answer came back. It was not retried (a retry could charge or refund twice). ` +
				`Reconcile ${id}: wait for its IPN or query the transaction before trying again.`,
			context,
		);
		this.orderRef = ids.orderRef;
		this.transactionId = ids.transactionId;
	}
}
