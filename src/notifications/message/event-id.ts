import { canonicalId } from "../../internal/ids.js";

/**
 * Event identity: one id per state change, so a status change is a new event while a re-delivery of
 * the same state is a duplicate. The id is written in its canonical (lower) case: ULIDs are
 * case-insensitive, so an IPN and a reconciliation that spell it differently are one event.
 */
export function transactionEventId(transactionId: string, status: string): string {
	return `transaction:${canonicalId(transactionId)}:${status}`;
}

/** The refund's event identity: `refund:{refundId}:{status}`, the id in its canonical case. */
export function refundEventId(refundId: string, status: string): string {
	return `refund:${canonicalId(refundId)}:${status}`;
}
