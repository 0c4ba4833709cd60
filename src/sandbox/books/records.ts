import type { FeeBreakdown } from "./fees.js";
import type { SandboxProvider } from "./merchant-options.js";
import type { SandboxRefundStatus, SandboxTransactionStatus } from "./statuses.js";

/**
 * The ledger's records. Only the ledger changes them (its `…State` types);
 * everything else reads them as `TransactionRecord` and `RefundRecord`.
 */

/** What a provider did with one charge attempt (auto-cascade may make several). */
export interface ProviderAttempt {
	/** The provider's name. */
	provider: string;
	/** What the provider did with the charge. */
	outcome: "approved" | "declined";
	/** The provider's message, such as why it declined. */
	message: string | null;
}

/** The card as the sandbox keeps it: never the full number, never the security code. */
export interface StoredCard {
	readonly name: string | null;
	readonly firstSixDigits: string;
	readonly lastFourDigits: string;
	readonly expiryMonth: string;
	readonly expiryYear: string;
	readonly type: string;
}

/** The URLs and display settings given at creation. */
export interface SessionRequest {
	readonly orderDescription: string;
	readonly paymentMethod: string;
	readonly callbackUrl: string;
	readonly notificationUrl: string;
	readonly cancelUrl: string;
	readonly errorUrl: string;
	readonly feeBySeller: number;
	readonly metadata?: Record<string, unknown> | undefined;
	readonly transactionDocuments?: readonly { type: string; url: string }[] | undefined;
	readonly brandName?: string | undefined;
	readonly colorMode?: string | undefined;
	readonly logoSource?: string | undefined;
}

/** The provider's later answer to a pending charge, decided when it was charged. */
export interface PendingSettlement {
	readonly at: Date;
	readonly outcome: "approved" | "declined";
}

/** How a transaction came to be: a hosted checkout session, or a server-to-server card charge. */
export type Channel = "checkout" | "s2s";

/** A transaction as the ledger keeps it. */
export interface TransactionState {
	merchantId: string;
	transactionId: string;
	transactionNumber: string;
	orderRef: string;
	currency: string;
	amountMinor: number;
	channel: Channel;
	request: SessionRequest;
	status: SandboxTransactionStatus;
	/** What a `pending` transaction waits for: the buyer's 3-D Secure, or the provider's later answer. */
	pendingOn: "three_ds" | "provider" | undefined;
	/** A charge pending on the provider: when its answer comes (sandbox clock) and what it will be. */
	settlement: PendingSettlement | undefined;
	message: string | null;
	createdAt: Date;
	/** When a provider first handled the charge (originalTransactionCreatedAt). */
	providerCreatedAt: Date | undefined;
	/** Checkout sessions only: the hosted page refuses payment after this. */
	expiresAt: Date | undefined;
	fees: FeeBreakdown | undefined;
	card: StoredCard | undefined;
	provider: Required<SandboxProvider> | undefined;
	attempts: ProviderAttempt[];
	/** Unguessable part of the hosted-page and 3DS links. */
	pageToken: string;
}

/** A transaction as everything but the ledger sees it. */
export type TransactionRecord = Readonly<Omit<TransactionState, "attempts">> & {
	readonly attempts: readonly Readonly<ProviderAttempt>[];
};

/** A refund as the ledger keeps it. It names its transaction; the transaction does not list its refunds. */
export interface RefundState {
	refundId: string;
	refundNumber: string;
	transactionId: string;
	amountMinor: number;
	reason: string | undefined;
	status: SandboxRefundStatus;
	message: string | null;
	createdAt: Date;
}

/** A refund as everything but the ledger sees it. */
export type RefundRecord = Readonly<RefundState>;

/** The buyer must complete 3-D Secure (status `pending`, waiting on the 3DS page). */
export function awaitsThreeDs(transaction: TransactionRecord): boolean {
	return transaction.status === "pending" && transaction.pendingOn === "three_ds";
}
