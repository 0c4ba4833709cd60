/**
 * Event identity: one id per state change, so a status change is a new
 * event while a re-delivery of the same state is a duplicate.
 */
export function transactionEventId(transactionId: string, status: string): string {
	return `transaction:${transactionId}:${status}`;
}

export function refundEventId(refundId: string, status: string): string {
	return `refund:${refundId}:${status}`;
}
