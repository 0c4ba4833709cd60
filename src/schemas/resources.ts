import * as z from "zod/mini";
import { isPlainObject } from "../internal/plain-object.js";
import type { RefundStatus, TransactionStatus } from "../statuses/catalogue.js";
import { type LazyOutput, lazySchema } from "./lazy.js";

/**
 * Resources as the gateway returns them (transaction and refund query, IPNs, callbacks): one schema per
 * message, each field documented where its rule is; the public types below are what they parse to. Built on
 * first use (see lazy.ts): verifying the first IPN builds them, importing does not.
 */

/** A status string typed with the catalogue's names; any other non-empty string is accepted too. */
const statusOf = <Status extends string>() => z.string().check(z.minLength(1)) as unknown as z.ZodMiniType<Status>;

const money = () => z.number();
const isoDateTime = () => z.string().check(z.minLength(1));
/** A non-empty string: an id, a link. */
export const id = () => z.string().check(z.minLength(1));
/** A field the gateway may leave out or send as null. */
export const absentOrNull = <S extends z.core.$ZodType>(schema: S) => z.optional(z.nullable(schema));

/** A supporting document given when the session was created. */
const transactionDocumentObject = () =>
	z.object({
		/** Kind of document, such as `invoice`. */
		type: z.string(),
		/** Where the document can be fetched. */
		url: z.string(),
	});

const feesObject = () =>
	z.object({
		/** Fee paid by the buyer. */
		buyer: z.optional(money()),
		/** Fee paid by the merchant. */
		seller: z.optional(money()),
		/** Rolling reserve held back. */
		rolling: z.optional(money()),
		/** Operating fee. */
		operate: z.optional(money()),
		/** When the rolling reserve is released (ISO 8601). May be absent or null. */
		estimationRollingReleaseAt: absentOrNull(isoDateTime()),
	});

const cardDetailsObject = () =>
	z.object({
		/** Cardholder name. May be absent or null. */
		name: absentOrNull(z.string()),
		/** The card number's first six digits. */
		firstSixDigits: z.optional(z.string()),
		/** The card number's last four digits. */
		lastFourDigits: z.optional(z.string()),
		/** Expiry month, two digits. */
		expiryMonth: z.optional(z.string()),
		/** Expiry year, two digits. */
		expiryYear: z.optional(z.string()),
		/** Card brand type. */
		type: z.optional(z.string()),
	});

const paymentMethodDetailsObject = () =>
	z.object({
		/** Display name of the method. */
		displayName: z.optional(z.string()),
		/** Method group. */
		group: z.optional(z.string()),
		/** Method family. */
		family: z.optional(z.string()),
		/** Method type. */
		type: z.optional(z.string()),
		/** Present for card payments. */
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
		/** Your merchant ID. May be absent. */
		merchantId: z.optional(z.string()),
		/** The gateway's transaction id (ULID), given when the session was created. Always sent. */
		transactionId: id(),
		/** Human-readable transaction number. May be absent. */
		transactionNumber: z.optional(z.string()),
		/** Your `orderRef`. Always sent. */
		ref: z.string(),
		/** ISO 4217 currency code. Always sent. */
		currency: z.string(),
		/** Invoice amount. Always sent. */
		amount: money(),
		/** Amount actually charged to the buyer, buyer fees included. May be absent. */
		paidAmount: z.optional(money()),
		/** Amount to be settled to you. May be absent. */
		settlementAmount: z.optional(money()),
		/** Estimated settlement time (ISO 8601). May be absent or null. */
		estimationSettlementAt: absentOrNull(isoDateTime()),
		/** Fee breakdown. May be absent. */
		fees: z.optional(feesObject()),
		/** Transaction status: one of the catalogue's names, or a newer one the gateway added. Always sent. */
		status: statusOf<TransactionStatus>(),
		/** Numeric status code. Always sent. */
		statusCode: z.number(),
		/** The key-value pairs given when the session was created, unchanged. May be absent or null. */
		metadata: metadataRecord(),
		/** Supporting documents given when the session was created. May be absent or null. */
		transactionDocuments: absentOrNull(z.array(transactionDocumentObject())),
		/** The payment method used. May be absent or null. */
		paymentMethodDetails: absentOrNull(paymentMethodDetailsObject()),
		/** Human-readable status message. May be absent or null. */
		message: absentOrNull(z.string()),
		/** Transaction descriptor. May be absent or null. */
		descriptor: absentOrNull(z.string()),
		/** Creation time in the gateway (ISO 8601). May be absent. */
		transactionCreatedAt: z.optional(isoDateTime()),
		/** Creation time at the payment service provider (ISO 8601). May be absent or null. */
		originalTransactionCreatedAt: absentOrNull(isoDateTime()),
	}),
);

/** The Refund resource: refund query response and refund IPN. */
export const refundSchema = lazySchema(() =>
	z.object({
		/** The refunded transaction's id (ULID). Always sent. */
		transactionId: id(),
		/** Your `orderRef` of the refunded transaction. Always sent. */
		ref: z.string(),
		/** The refund's id (ULID). Always sent. */
		refundId: id(),
		/** ISO 4217 currency code. Always sent. */
		currency: z.string(),
		/** Refunded amount. Always sent. */
		refundAmount: money(),
		/** Refund status: one of the catalogue's names, or a newer one the gateway added. Always sent. */
		status: statusOf<RefundStatus>(),
		/** Numeric status code. Always sent. */
		statusCode: z.number(),
		/** The key-value pairs of the original session. May be absent or null. */
		metadata: metadataRecord(),
		/** The refund reason. May be absent or null. */
		reason: absentOrNull(z.string()),
		/** Human-readable status message. May be absent or null. */
		message: absentOrNull(z.string()),
		/** Refund creation time at the payment service provider (ISO 8601). Always sent. */
		originalRefundCreatedAt: isoDateTime(),
		/** Refund creation time in the gateway (ISO 8601). Always sent. */
		refundCreatedAt: isoDateTime(),
		/** The refunded transaction's creation time (ISO 8601). Always sent. */
		transactionCreatedAt: isoDateTime(),
	}),
);

/** The decoded fields of a callback redirect (verified). Query the transaction for full details. */
export const callbackResultSchema = lazySchema(() =>
	// The gateway's guide marks every field but status as optional.
	z.object({
		/** Transaction status: one of the catalogue's names, or a newer one the gateway added. Always sent. */
		status: statusOf<TransactionStatus>(),
		/** The gateway's transaction id (ULID). May be absent. */
		transactionId: z.optional(id()),
		/** Your `orderRef`. May be absent. */
		ref: z.optional(z.string()),
		/** Invoice amount. May be absent. */
		amount: z.optional(money()),
		/** ISO 4217 currency code. May be absent. */
		currency: z.optional(z.string()),
	}),
);

/**
 * A transaction, as the transaction query returns it and the transaction IPN carries it
 * (verified). Fields without "may be absent" are always sent; unknown extra fields are dropped.
 * @interface
 */
export type Transaction = LazyOutput<typeof transactionSchema>;

/**
 * A refund, as the refund query returns it and the refund IPN carries it (verified).
 * Fields without "may be absent" are always sent; unknown extra fields are dropped.
 * @interface
 */
export type Refund = LazyOutput<typeof refundSchema>;

/**
 * The summary the buyer's redirect to your callbackUrl carries (verified). Only `status` is always
 * sent; the IPN or a transaction query gives the full transaction.
 * @interface
 */
export type CallbackResult = LazyOutput<typeof callbackResultSchema>;

/**
 * A supporting document given when the session was created.
 * @interface
 */
export type TransactionDocument = NonNullable<Transaction["transactionDocuments"]>[number];

/**
 * The fee breakdown of a transaction. Each field may be absent.
 * @interface
 */
export type TransactionFees = NonNullable<Transaction["fees"]>;

/**
 * The payment method used. Each field may be absent.
 * @interface
 */
export type PaymentMethodDetails = NonNullable<Transaction["paymentMethodDetails"]>;

/**
 * The card a payment was made with, as much as the gateway shows of it. Each field may be absent.
 * @interface
 */
export type CardDetails = NonNullable<PaymentMethodDetails["card"]>;
