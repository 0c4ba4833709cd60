import { z } from "zod";
import type { RefundStatus, TransactionStatus } from "../statuses/catalogue.js";
import { type LazyOutput, lazySchema } from "./lazy.js";

/**
 * Resources as the gateway returns them (transaction and refund query, IPNs,
 * callbacks). One schema per message; the public types are inferred from them.
 * Unknown extra fields are dropped, unknown statuses are kept (D8). Built on
 * first use (see lazy.ts): verifying the first IPN builds them, importing does not.
 */

/** A status string typed with the catalogue's names (D8); any other non-empty string is accepted too. */
const statusOf = <Status extends string>() => z.string().min(1) as unknown as z.ZodType<Status>;

const money = () => z.number().finite();
const isoDateTime = () => z.string().min(1);
const nullableString = () => z.string().nullable();

const transactionDocumentObject = () =>
	z.object({
		/** Kind of document, such as `invoice`. */
		type: z.string(),
		/** Where the document can be fetched. */
		url: z.string(),
	});

const feesObject = () =>
	z.object({
		buyer: money().optional(),
		seller: money().optional(),
		rolling: money().optional(),
		operate: money().optional(),
		estimationRollingReleaseAt: isoDateTime().nullable().optional(),
	});

const cardDetailsObject = () =>
	z.object({
		/** Cardholder name. */
		name: z.string().nullable().optional(),
		firstSixDigits: z.string().optional(),
		lastFourDigits: z.string().optional(),
		/** Two digits. */
		expiryMonth: z.string().optional(),
		/** Two digits. */
		expiryYear: z.string().optional(),
		/** Card brand type. */
		type: z.string().optional(),
	});

const paymentMethodDetailsObject = () =>
	z.object({
		displayName: z.string().optional(),
		group: z.string().optional(),
		family: z.string().optional(),
		type: z.string().optional(),
		/** Present for card payments. */
		card: cardDetailsObject().optional(),
	});

/** The Transaction resource: transaction query response and transaction IPN. */
export const transactionSchema = lazySchema(() =>
	z.object({
		merchantId: z.string().optional(),
		/** Gateway transaction id (ULID). */
		transactionId: z.string().min(1),
		/** Human-readable transaction number. */
		transactionNumber: z.string().optional(),
		/** The merchant's orderRef. */
		ref: z.string(),
		currency: z.string(),
		/** Invoice amount. */
		amount: money(),
		/** Amount charged to the buyer, buyer fees included. */
		paidAmount: money().optional(),
		/** Amount to be settled to the merchant. */
		settlementAmount: money().optional(),
		estimationSettlementAt: isoDateTime().nullable().optional(),
		fees: feesObject().optional(),
		status: statusOf<TransactionStatus>(),
		statusCode: z.number(),
		/** Key-value pairs given at session creation, returned unchanged. */
		metadata: z.record(z.string(), z.unknown()).nullable().optional(),
		transactionDocuments: z.array(transactionDocumentObject()).nullable().optional(),
		paymentMethodDetails: paymentMethodDetailsObject().nullable().optional(),
		message: nullableString().optional(),
		descriptor: z.string().nullable().optional(),
		transactionCreatedAt: isoDateTime().optional(),
		originalTransactionCreatedAt: isoDateTime().nullable().optional(),
	}),
);

/** The Refund resource: refund query response and refund IPN. */
export const refundSchema = lazySchema(() =>
	z.object({
		/** The original transaction's id. */
		transactionId: z.string().min(1),
		/** The merchant's orderRef. */
		ref: z.string(),
		/** Refund id (ULID). */
		refundId: z.string().min(1),
		currency: z.string(),
		refundAmount: money(),
		status: statusOf<RefundStatus>(),
		statusCode: z.number(),
		metadata: z.record(z.string(), z.unknown()).nullable().optional(),
		reason: z.string().nullable().optional(),
		message: nullableString().optional(),
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
		transactionId: z.string().min(1).optional(),
		/** The merchant's orderRef. */
		ref: z.string().optional(),
		amount: money().optional(),
		currency: z.string().optional(),
	}),
);

export type Transaction = LazyOutput<typeof transactionSchema>;
export type Refund = LazyOutput<typeof refundSchema>;
export type TransactionDocument = z.output<ReturnType<typeof transactionDocumentObject>>;
export type CallbackResult = LazyOutput<typeof callbackResultSchema>;
