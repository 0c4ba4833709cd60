import { type KnownRefundStatus, type KnownTransactionStatus, STATUS_CODES } from "../statuses/catalogue.js";

/**
 * The statuses the sandbox uses, taken from the gateway's catalogue (D8) as the
 * gateway uses them, with whether each is final and what it means here. Codes
 * come from `STATUS_CODES`, the one place they are written.
 */

interface SandboxStatus {
	code: number;
	terminal: boolean;
	meaning: string;
}

/** Transaction statuses the sandbox sets. */
export const transactionStatuses = {
	incomplete: { code: STATUS_CODES.incomplete, terminal: false, meaning: "A checkout session not paid yet." },
	pending: {
		code: STATUS_CODES.pending,
		terminal: false,
		meaning: "Waiting: the provider will confirm the charge later, or the buyer must complete 3-D Secure.",
	},
	successful: { code: STATUS_CODES.successful, terminal: true, meaning: "Paid." },
	failed: {
		code: STATUS_CODES.failed,
		terminal: true,
		meaning: "Declined, insufficient funds, failed 3-D Secure or a provider error; message says which.",
	},
	canceled: { code: STATUS_CODES.canceled, terminal: true, meaning: "The buyer canceled on the hosted page." },
	expired: { code: STATUS_CODES.expired, terminal: true, meaning: "The checkout session reached expiresAt unpaid." },
} as const satisfies { [Status in KnownTransactionStatus]?: SandboxStatus };

/** Refund statuses the sandbox sets. */
export const refundStatuses = {
	refund_under_review: {
		code: STATUS_CODES.refund_under_review,
		terminal: false,
		meaning: "Created and held until the merchant's approval (manual approval accounts).",
	},
	refund_successful: { code: STATUS_CODES.refund_successful, terminal: true, meaning: "Refunded." },
	refund_failed: {
		code: STATUS_CODES.refund_failed,
		terminal: true,
		meaning: "Rejected during manual approval; the amount is refundable again.",
	},
} as const satisfies { [Status in KnownRefundStatus]?: SandboxStatus };

export type SandboxTransactionStatus = keyof typeof transactionStatuses;
export type SandboxRefundStatus = keyof typeof refundStatuses;
