import {
	type KnownRefundStatus,
	type KnownTransactionStatus,
	STATUS_CODES,
	type StatusCode,
} from "../../statuses/catalogue.js";

/** One status the sandbox sets. */
export interface SandboxStatus {
	/** Its code in the gateway's catalogue (`STATUS_CODES`). */
	code: StatusCode;
	/** Final: the status does not change again. */
	terminal: boolean;
	/** What it means in the sandbox. */
	meaning: string;
}

/** A transaction status the sandbox sets. */
export type SandboxTransactionStatus = Extract<
	KnownTransactionStatus,
	"incomplete" | "pending" | "successful" | "failed" | "canceled" | "expired"
>;
/** A refund status the sandbox sets. */
export type SandboxRefundStatus = Extract<
	KnownRefundStatus,
	"refund_under_review" | "refund_successful" | "refund_failed"
>;

/** Transaction statuses the sandbox sets. */
export const transactionStatuses: Readonly<Record<SandboxTransactionStatus, SandboxStatus>> = {
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
};

/** Refund statuses the sandbox sets. */
export const refundStatuses: Readonly<Record<SandboxRefundStatus, SandboxStatus>> = {
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
};
