import * as z from "zod/mini";
import {
	refundStatuses,
	type SandboxRefundStatus,
	type SandboxTransactionStatus,
	transactionStatuses,
} from "./statuses.js";

/** What a provider did with one charge attempt (auto-cascade may make several). */
export interface ProviderAttempt {
	/** The provider's name. */
	provider: string;
	/** What the provider did with the charge. */
	outcome: "approved" | "declined";
	/** The provider's message, such as why it declined. */
	message: string | null;
}

/** A date as a saved state writes it (ISO 8601), read back as a `Date`. */
export const savedDate = z.pipe(
	z.iso.datetime(),
	z.transform((text) => new Date(text)),
);
const text = z.string();
const optionalText = z.optional(text);
const money = z.int();
const outcome = z.enum(["approved", "declined"]);

// A transaction as the ledger keeps it, and as a saved state reads it back: the schema is its type.
export const transactionSchema = z.object({
	merchantId: text,
	transactionId: text,
	transactionNumber: text,
	orderRef: text,
	currency: text,
	amountMinor: money,
	/** How it came to be: a hosted checkout session, or a server-to-server card charge. */
	channel: z.enum(["checkout", "s2s"]),
	/** The URLs and display settings given at creation. */
	request: z.object({
		orderDescription: text,
		paymentMethod: text,
		callbackUrl: text,
		notificationUrl: text,
		cancelUrl: text,
		errorUrl: text,
		feeBySeller: z.number(),
		metadata: z.optional(z.record(z.string(), z.unknown())),
		transactionDocuments: z.optional(z.array(z.object({ type: text, url: text }))),
		brandName: optionalText,
		colorMode: optionalText,
		logoSource: optionalText,
	}),
	status: z.enum(Object.keys(transactionStatuses) as [SandboxTransactionStatus]),
	/** What a `pending` transaction waits for: the buyer's 3-D Secure, or the provider's later answer. */
	pendingOn: z.optional(z.enum(["three_ds", "provider"])),
	/** A charge pending on the provider: when its answer comes (sandbox clock) and what it will be. */
	settlement: z.optional(z.object({ at: savedDate, outcome })),
	message: z.nullable(text),
	createdAt: savedDate,
	/** When a provider first handled the charge (originalTransactionCreatedAt). */
	providerCreatedAt: z.optional(savedDate),
	/** Checkout sessions only: the hosted page refuses payment after this. */
	expiresAt: z.optional(savedDate),
	/** Fees of a paid transaction, in minor units, and the dates that go with them. */
	fees: z.optional(
		z.object({
			buyer: money,
			seller: money,
			rolling: money,
			operate: money,
			/** amount + buyer fee: what the buyer was charged. */
			paid: money,
			/** paid - buyer - seller - rolling - operate: what the merchant receives. */
			settlement: money,
			settlementAt: savedDate,
			rollingReleaseAt: savedDate,
		}),
	),
	/** The card as the sandbox keeps it: never the full number, never the security code. */
	card: z.optional(
		z.object({
			name: z.nullable(text),
			firstSixDigits: text,
			lastFourDigits: text,
			expiryMonth: text,
			expiryYear: text,
			type: text,
		}),
	),
	provider: z.optional(z.object({ name: text, kind: z.enum(["s2s", "hpp"]), fullRefundOnly: z.boolean() })),
	attempts: z.array(z.object({ provider: text, outcome, message: z.nullable(text) })),
	/** Unguessable part of the hosted-page and 3DS links. */
	pageToken: text,
});

/** A transaction as the ledger keeps it. */
export type TransactionState = z.output<typeof transactionSchema>;
export type Channel = TransactionState["channel"];
export type SessionRequest = TransactionState["request"];
export type StoredCard = NonNullable<TransactionState["card"]>;
export type Provider = NonNullable<TransactionState["provider"]>;
export type FeeBreakdown = NonNullable<TransactionState["fees"]>;

// A refund names its transaction; the transaction does not list its refunds.
export const refundSchema = z.object({
	refundId: text,
	refundNumber: text,
	transactionId: text,
	amountMinor: money,
	reason: optionalText,
	status: z.enum(Object.keys(refundStatuses) as [SandboxRefundStatus]),
	message: z.nullable(text),
	createdAt: savedDate,
});

/** A refund as the ledger keeps it. */
export type RefundState = z.output<typeof refundSchema>;

/** A transaction as everything but the ledger sees it. */
export type TransactionRecord = Readonly<Omit<TransactionState, "attempts">> & {
	readonly attempts: readonly Readonly<ProviderAttempt>[];
};

/** A refund as everything but the ledger sees it. */
export type RefundRecord = Readonly<RefundState>;

/** The path of a transaction's hosted page, checkout (`pay`) or 3-D Secure (`3ds`), its token included. */
export function pagePath(page: "pay" | "3ds", record: TransactionRecord): string {
	return `/${page}/${record.transactionId}?token=${record.pageToken}`;
}

/** The buyer must complete 3-D Secure (status `pending`, waiting on the 3DS page). */
export function awaitsThreeDs(transaction: TransactionRecord): boolean {
	return transaction.status === "pending" && transaction.pendingOn === "three_ds";
}
