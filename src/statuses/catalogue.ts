/**
 * The gateway's status catalogue, from its status appendix: every status
 * name with its numeric code. `canceled` has one "l"; there is no `declined`,
 * `cancelled` or `completed`. Refunds use codes 8 to 13.
 *
 * The gateway may add statuses: the status types accept any other string, and
 * the SDK never refuses a message for carrying a status it does not know.
 */
export const STATUS_CODES = Object.freeze({
	incomplete: 1,
	pending: 2,
	error: 3,
	failed: 4,
	under_review: 5,
	successful: 6,
	released: 7,
	refund_initiated: 8,
	refund_failed: 9,
	refund_under_review: 10,
	refund_successful: 11,
	refund_partially_failed: 12,
	refund_partially_successful: 13,
	canceled: 14,
	rejected: 15,
	expired: 16,
	documents_uploaded: 17,
	void_initiated: 18,
	void_under_review: 19,
	void_successful: 20,
	void_failed: 21,
	void_partially_successful: 22,
	void_partially_failed: 23,
} as const);

/** Every status name of the catalogue. */
export type KnownStatus = keyof typeof STATUS_CODES;
/** Every code of the catalogue (1 to 23). */
export type StatusCode = (typeof STATUS_CODES)[KnownStatus];
/** The refund statuses of the catalogue (codes 8 to 13). */
export type KnownRefundStatus = Extract<KnownStatus, `refund_${string}`>;
/** The transaction statuses of the catalogue: every status that is not a refund's. */
export type KnownTransactionStatus = Exclude<KnownStatus, KnownRefundStatus>;
/** A transaction's status: a name of the catalogue, or any other string the gateway may send. */
export type TransactionStatus = KnownTransactionStatus | (string & {});
/** A refund's status: a name of the catalogue, or any other string the gateway may send. */
export type RefundStatus = KnownRefundStatus | (string & {});

const NAME_BY_CODE = new Map<number, KnownStatus>();
for (const [name, code] of Object.entries(STATUS_CODES)) NAME_BY_CODE.set(code, name as KnownStatus);

/** The catalogue's name for a numeric status code (`14` -> `"canceled"`), or undefined for a code it does not list. */
export function statusFromCode(code: number): KnownStatus | undefined {
	return NAME_BY_CODE.get(code);
}

/** The catalogue's code for a status name (`"canceled"` -> `14`), or undefined for a name it does not list. */
export function codeOfStatus(status: string): StatusCode | undefined {
	return Object.hasOwn(STATUS_CODES, status) ? STATUS_CODES[status as KnownStatus] : undefined;
}
