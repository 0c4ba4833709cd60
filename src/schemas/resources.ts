import * as z from "zod/mini";
import { isPlainObject } from "../internal/plain-object.js";
import type { RefundStatus, TransactionStatus } from "../statuses/catalogue.js";
import { type LazyOutput, lazySchema } from "./lazy.js";
import type { Assert, SameShape } from "./type-equality.js";

/**
 * Resources as the gateway returns them (transaction and refund query, IPNs,
 * callbacks). One schema per message, and the public interfaces below, checked
 * against what each schema parses to (`Assert` lines). Unknown extra fields are
 * dropped, unknown statuses are kept (the gateway may add some). Built on first use (see lazy.ts):
 * verifying the first IPN builds them, importing does not.
 */

/** A status string typed with the catalogue's names; any other non-empty string is accepted too. */
const statusOf = <Status extends string>() => z.string().check(z.minLength(1)) as unknown as z.ZodMiniType<Status>;

const money = () => z.number();
const isoDateTime = () => z.string().check(z.minLength(1));
const id = () => z.string().check(z.minLength(1));
/** A field the gateway may leave out or send as null. */
const absentOrNull = <S extends z.core.$ZodType>(schema: S) => z.optional(z.nullable(schema));

const transactionDocumentObject = () => z.object({ type: z.string(), url: z.string() });

const feesObject = () =>
	z.object({
		buyer: z.optional(money()),
		seller: z.optional(money()),
		rolling: z.optional(money()),
		operate: z.optional(money()),
		estimationRollingReleaseAt: absentOrNull(isoDateTime()),
	});

const cardDetailsObject = () =>
	z.object({
		name: absentOrNull(z.string()),
		firstSixDigits: z.optional(z.string()),
		lastFourDigits: z.optional(z.string()),
		expiryMonth: z.optional(z.string()),
		expiryYear: z.optional(z.string()),
		type: z.optional(z.string()),
	});

const paymentMethodDetailsObject = () =>
	z.object({
		displayName: z.optional(z.string()),
		group: z.optional(z.string()),
		family: z.optional(z.string()),
		type: z.optional(z.string()),
		card: z.optional(cardDetailsObject()),
	});

/**
 * Free-form metadata, handed out exactly as signed: checked in place rather than copied, because zod's
 * record copies key by key and skips a `__proto__` key, which is a member like any other here. The
 * object is the verifier's own (parsed from the signed text or trimmed into a copy), never the caller's.
 */
const metadataRecord = () => absentOrNull(z.custom<Record<string, unknown>>(isPlainObject, "must be a JSON object"));

/** The Transaction resource: transaction query response and transaction IPN. */
export const transactionSchema = lazySchema(() =>
	z.object({
		merchantId: z.optional(z.string()),
		transactionId: id(),
		transactionNumber: z.optional(z.string()),
		ref: z.string(),
		currency: z.string(),
		amount: money(),
		paidAmount: z.optional(money()),
		settlementAmount: z.optional(money()),
		estimationSettlementAt: absentOrNull(isoDateTime()),
		fees: z.optional(feesObject()),
		status: statusOf<TransactionStatus>(),
		statusCode: z.number(),
		metadata: metadataRecord(),
		transactionDocuments: absentOrNull(z.array(transactionDocumentObject())),
		paymentMethodDetails: absentOrNull(paymentMethodDetailsObject()),
		message: absentOrNull(z.string()),
		descriptor: absentOrNull(z.string()),
		transactionCreatedAt: z.optional(isoDateTime()),
		originalTransactionCreatedAt: absentOrNull(isoDateTime()),
	}),
);

/** The Refund resource: refund query response and refund IPN. */
export const refundSchema = lazySchema(() =>
	z.object({
		transactionId: id(),
		ref: z.string(),
		refundId: id(),
		currency: z.string(),
		refundAmount: money(),
		status: statusOf<RefundStatus>(),
		statusCode: z.number(),
		metadata: metadataRecord(),
		reason: absentOrNull(z.string()),
		message: absentOrNull(z.string()),
		originalRefundCreatedAt: isoDateTime(),
		refundCreatedAt: isoDateTime(),
		transactionCreatedAt: isoDateTime(),
	}),
);

/** The decoded fields of a callback redirect (verified). Query the transaction for full details. */
export const callbackResultSchema = lazySchema(() =>
	// The gateway's guide marks every field but status as optional.
	z.object({
		status: statusOf<TransactionStatus>(),
		transactionId: z.optional(id()),
		/** The merchant's orderRef. */
		ref: z.optional(z.string()),
		amount: z.optional(money()),
		currency: z.optional(z.string()),
	}),
);

/** A supporting document given when the session was created. */
export interface TransactionDocument {
	/** Kind of document, such as `invoice`. */
	type: string;
	/** Where the document can be fetched. */
	url: string;
}

/** The fee breakdown of a transaction. Each field may be absent. */
export interface TransactionFees {
	/** Fee paid by the buyer. */
	buyer?: number | undefined;
	/** Fee paid by the merchant. */
	seller?: number | undefined;
	/** Rolling reserve held back. */
	rolling?: number | undefined;
	/** Operating fee. */
	operate?: number | undefined;
	/** When the rolling reserve is released (ISO 8601). May be absent or null. */
	estimationRollingReleaseAt?: string | null | undefined;
}

/** The card a payment was made with, as much as the gateway shows of it. Each field may be absent. */
export interface CardDetails {
	/** Cardholder name. May be absent or null. */
	name?: string | null | undefined;
	/** The card number's first six digits. */
	firstSixDigits?: string | undefined;
	/** The card number's last four digits. */
	lastFourDigits?: string | undefined;
	/** Expiry month, two digits. */
	expiryMonth?: string | undefined;
	/** Expiry year, two digits. */
	expiryYear?: string | undefined;
	/** Card brand type. */
	type?: string | undefined;
}

/** The payment method used. Each field may be absent. */
export interface PaymentMethodDetails {
	/** Display name of the method. */
	displayName?: string | undefined;
	/** Method group. */
	group?: string | undefined;
	/** Method family. */
	family?: string | undefined;
	/** Method type. */
	type?: string | undefined;
	/** Present for card payments. */
	card?: CardDetails | undefined;
}

/**
 * A transaction, as the transaction query returns it and the transaction IPN carries it
 * (verified). Fields without "may be absent" are always sent; unknown extra fields are dropped.
 */
export interface Transaction {
	/** Your merchant ID. May be absent. */
	merchantId?: string | undefined;
	/** The gateway's transaction id (ULID), given when the session was created. Always sent. */
	transactionId: string;
	/** Human-readable transaction number. May be absent. */
	transactionNumber?: string | undefined;
	/** Your `orderRef`. Always sent. */
	ref: string;
	/** ISO 4217 currency code. Always sent. */
	currency: string;
	/** Invoice amount. Always sent. */
	amount: number;
	/** Amount actually charged to the buyer, buyer fees included. May be absent. */
	paidAmount?: number | undefined;
	/** Amount to be settled to you. May be absent. */
	settlementAmount?: number | undefined;
	/** Estimated settlement time (ISO 8601). May be absent or null. */
	estimationSettlementAt?: string | null | undefined;
	/** Fee breakdown. May be absent. */
	fees?: TransactionFees | undefined;
	/** Transaction status: one of the catalogue's names, or a newer one the gateway added. Always sent. */
	status: TransactionStatus;
	/** Numeric status code. Always sent. */
	statusCode: number;
	/** The key-value pairs given when the session was created, unchanged. May be absent or null. */
	metadata?: Record<string, unknown> | null | undefined;
	/** Supporting documents given when the session was created. May be absent or null. */
	transactionDocuments?: TransactionDocument[] | null | undefined;
	/** The payment method used. May be absent or null. */
	paymentMethodDetails?: PaymentMethodDetails | null | undefined;
	/** Human-readable status message. May be absent or null. */
	message?: string | null | undefined;
	/** Transaction descriptor. May be absent or null. */
	descriptor?: string | null | undefined;
	/** Creation time in the gateway (ISO 8601). May be absent. */
	transactionCreatedAt?: string | undefined;
	/** Creation time at the payment service provider (ISO 8601). May be absent or null. */
	originalTransactionCreatedAt?: string | null | undefined;
}

/**
 * A refund, as the refund query returns it and the refund IPN carries it (verified).
 * Fields without "may be absent" are always sent; unknown extra fields are dropped.
 */
export interface Refund {
	/** The refunded transaction's id (ULID). Always sent. */
	transactionId: string;
	/** Your `orderRef` of the refunded transaction. Always sent. */
	ref: string;
	/** The refund's id (ULID). Always sent. */
	refundId: string;
	/** ISO 4217 currency code. Always sent. */
	currency: string;
	/** Refunded amount. Always sent. */
	refundAmount: number;
	/** Refund status: one of the catalogue's names, or a newer one the gateway added. Always sent. */
	status: RefundStatus;
	/** Numeric status code. Always sent. */
	statusCode: number;
	/** The key-value pairs of the original session. May be absent or null. */
	metadata?: Record<string, unknown> | null | undefined;
	/** The refund reason. May be absent or null. */
	reason?: string | null | undefined;
	/** Human-readable status message. May be absent or null. */
	message?: string | null | undefined;
	/** Refund creation time at the payment service provider (ISO 8601). Always sent. */
	originalRefundCreatedAt: string;
	/** Refund creation time in the gateway (ISO 8601). Always sent. */
	refundCreatedAt: string;
	/** The refunded transaction's creation time (ISO 8601). Always sent. */
	transactionCreatedAt: string;
}

/**
 * The summary the buyer's redirect to your callbackUrl carries (verified). Only `status` is always
 * sent; the IPN or a transaction query gives the full transaction.
 */
export interface CallbackResult {
	/** Transaction status: one of the catalogue's names, or a newer one the gateway added. Always sent. */
	status: TransactionStatus;
	/** The gateway's transaction id (ULID). May be absent. */
	transactionId?: string | undefined;
	/** Your `orderRef`. May be absent. */
	ref?: string | undefined;
	/** Invoice amount. May be absent. */
	amount?: number | undefined;
	/** ISO 4217 currency code. May be absent. */
	currency?: string | undefined;
}

export type _CallbackResultMatch = Assert<SameShape<CallbackResult, LazyOutput<typeof callbackResultSchema>>>;

export type _TransactionMatch = Assert<SameShape<Transaction, LazyOutput<typeof transactionSchema>>>;
export type _RefundMatch = Assert<SameShape<Refund, LazyOutput<typeof refundSchema>>>;
type InferredTransaction = LazyOutput<typeof transactionSchema>;
export type _TransactionDocumentMatch = Assert<
	SameShape<TransactionDocument, NonNullable<InferredTransaction["transactionDocuments"]>[number]>
>;
export type _FeesMatch = Assert<SameShape<TransactionFees, NonNullable<InferredTransaction["fees"]>>>;
export type _PaymentMethodDetailsMatch = Assert<
	SameShape<PaymentMethodDetails, NonNullable<InferredTransaction["paymentMethodDetails"]>>
>;
