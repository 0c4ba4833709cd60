/**
 * The sandbox's status catalogue (D8). The spec names only `successful` (6) and
 * `refund_successful` (11); the rest is the sandbox's own, documented choice.
 * The real gateway may use other names and codes: the SDK types statuses as
 * the known values plus any string, so integrations must not depend on these.
 */

/** Transaction statuses: name -> numeric code, whether final, and what it means. */
export const transactionStatuses = {
	created: { code: 1, terminal: false, meaning: "Checkout session created; the buyer has not paid yet." },
	pending: { code: 2, terminal: false, meaning: "The provider accepted the charge and will confirm it later." },
	awaiting_3ds: { code: 3, terminal: false, meaning: "The buyer must complete 3-D Secure on the sandbox's 3DS page." },
	successful: { code: 6, terminal: true, meaning: "Paid." },
	failed: { code: 7, terminal: true, meaning: "Declined, insufficient funds, failed 3DS or a provider error; message says which." },
	cancelled: { code: 8, terminal: true, meaning: "The buyer cancelled on the hosted page." },
	expired: { code: 9, terminal: true, meaning: "The checkout session reached expiresAt unpaid." },
} as const;

/** Refund statuses. Codes continue after the transaction codes; 11 is the spec's. */
export const refundStatuses = {
	refund_pending_approval: { code: 10, terminal: false, meaning: "Created and held until the merchant approves it (manual approval accounts)." },
	refund_successful: { code: 11, terminal: true, meaning: "Refunded." },
	refund_rejected: { code: 12, terminal: true, meaning: "Rejected during manual approval; the amount is refundable again." },
} as const;

export type SandboxTransactionStatus = keyof typeof transactionStatuses;
export type SandboxRefundStatus = keyof typeof refundStatuses;
