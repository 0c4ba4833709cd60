import * as z from "zod/mini";
import { type LazyOutput, lazySchema } from "./lazy.js";
import type { Assert, SameShape } from "./type-equality.js";

/**
 * What the five endpoints answer, after the signature was verified (D6), and
 * the typed results the client returns. Error bodies are unsigned; their
 * schemas only decide which error class to throw. Built on first use (lazy.ts).
 */

const id = () => z.string().check(z.minLength(1));
const absentOrNull = <S extends z.core.$ZodType>(schema: S) => z.optional(z.nullable(schema));
const text = () => z.string();
/** Statuses the gateway may extend (D8): any string. */
const anyStatus = () => z.string();

/** POST /v2/checkout success (connectionMode API), fields after verification. */
export const checkoutCreatedFieldsSchema = lazySchema(() =>
	z.object({
		status: z.literal("created"),
		transactionId: id(),
		paymentLink: id(),
		message: absentOrNull(text()),
	}),
);

/** The result of `checkout.create`. */
export const checkoutSessionSchema = lazySchema(() =>
	z.object({
		/** The new transaction's id (ULID). */
		transactionId: id(),
		/** Signed URL to redirect the buyer to. */
		paymentLink: z.string(),
		/** The gateway's message. */
		message: z.nullable(text()),
	}),
);
/** The result of `checkout.create`. */
export interface CheckoutSession {
	/** The new transaction's id (ULID); it identifies the transaction from now on. */
	transactionId: string;
	/** Signed URL to redirect the buyer to. */
	paymentLink: string;
	/** The gateway's message. */
	message: string | null;
}
export type _CheckoutSessionMatch = Assert<SameShape<CheckoutSession, LazyOutput<typeof checkoutSessionSchema>>>;

/** The verified `data` of an S2S charge answer. */
export const cardChargeDataSchema = lazySchema(() =>
	z.object({
		transactionId: id(),
		/** 3DS page, present when status is `redirect`. */
		url: z.optional(id()),
	}),
);

const chargeBase = () => ({ transactionId: id(), message: z.nullable(text()) });
/** The result of `card.charge`: a union on `outcome`. */
export const cardChargeResultSchema = lazySchema(() =>
	z.discriminatedUnion("outcome", [
		/** Charged, no 3DS needed. Confirm through the IPN or a transaction query before shipping. */
		z.object({ outcome: z.literal("success"), ...chargeBase() }),
		/** 3DS required: send the buyer's browser to `redirectUrl`; the IPN brings the result. */
		z.object({ outcome: z.literal("redirect"), ...chargeBase(), redirectUrl: id() }),
		/** Accepted, result not known yet: wait for the IPN or query the transaction. */
		z.object({ outcome: z.literal("pending"), ...chargeBase() }),
	]),
);
interface ChargeBase {
	/** The transaction's id (ULID), signed: query it, or match its IPN. */
	transactionId: string;
	/** The gateway's message. Unsigned (it sits in the answer's wrapper): show it, never decide on it. */
	message: string | null;
}
/**
 * Charged without 3DS, as the answer's wrapper `status` says. That status is
 * unsigned: confirm through the IPN or a transaction query before fulfilling.
 */
export interface CardChargeSuccess extends ChargeBase {
	/** Tells the three results apart. */
	outcome: "success";
}
/**
 * 3DS required: send the buyer's browser to `redirectUrl`; the IPN brings the result, then the buyer
 * returns to callbackUrl. Decided by the signed `data.url`, whatever the unsigned wrapper status says.
 */
export interface CardChargeRedirect extends ChargeBase {
	/** Tells the three results apart. */
	outcome: "redirect";
	/** The 3DS page (the answer's `data.url`, signed). */
	redirectUrl: string;
}
/** Accepted, result not known yet (the unsigned wrapper `status`): wait for the IPN or query the transaction. */
export interface CardChargePending extends ChargeBase {
	/** Tells the three results apart. */
	outcome: "pending";
}
/** The result of `card.charge`: a union on `outcome`. */
export type CardChargeResult = CardChargeSuccess | CardChargeRedirect | CardChargePending;
/** The kinds of `card.charge` result: `success`, `redirect` or `pending`. */
export type CardChargeOutcome = CardChargeResult["outcome"];
type InferredCharge = LazyOutput<typeof cardChargeResultSchema>;
export type _CardChargeSuccessMatch = Assert<
	SameShape<CardChargeSuccess, Extract<InferredCharge, { outcome: "success" }>>
>;
export type _CardChargeRedirectMatch = Assert<
	SameShape<CardChargeRedirect, Extract<InferredCharge, { outcome: "redirect" }>>
>;
export type _CardChargePendingMatch = Assert<
	SameShape<CardChargePending, Extract<InferredCharge, { outcome: "pending" }>>
>;

/** The verified `data` of a refund creation answer. */
export const refundCreatedDataSchema = lazySchema(() => z.object({ refundId: id(), refundNumber: id() }));

/** The result of `refunds.create`. */
export const refundCreatedSchema = lazySchema(() =>
	z.object({
		/** Refund id (ULID). */
		refundId: id(),
		/** Human-readable refund number. */
		refundNumber: z.string(),
		/**
		 * `processed` when the gateway auto-processed the refund (its message is null));
		 * `pending_approval` when it is held for manual approval (the message says so).
		 */
		approval: z.enum(["processed", "pending_approval"]),
		/** The gateway's message: null when auto-processed. */
		message: z.nullable(text()),
	}),
);
/** The result of `refunds.create`. */
export interface RefundCreated {
	/** Refund id (ULID), signed: query it, or match its refund IPN. */
	refundId: string;
	/** Human-readable refund number, signed. */
	refundNumber: string;
	/**
	 * `processed`: the gateway processed the refund at once (its message is null).
	 * `pending_approval`: the refund is held for manual approval (the message says so).
	 * Unsigned (read from the wrapper's `message`): confirm with `refunds.retrieve(refundId)` before acting on it.
	 */
	approval: "processed" | "pending_approval";
	/** The gateway's message: null when auto-processed. Unsigned. */
	message: string | null;
}
/** Whether a created refund was processed at once or waits for the merchant's approval. */
export type RefundApproval = RefundCreated["approval"];
export type _RefundCreatedMatch = Assert<SameShape<RefundCreated, LazyOutput<typeof refundCreatedSchema>>>;

/** The wrapper of S2S, refund and refund query answers (`status`, `message`). */
export const wrapperSchema = lazySchema(() => z.object({ status: anyStatus(), message: absentOrNull(text()) }));

/** 422 validation error: `errors` of `{ field, message[] }` (a single string is tolerated). */
export const validationErrorBodySchema = lazySchema(() =>
	z.object({
		message: absentOrNull(text()),
		errors: z.array(
			z.object({
				field: z.string(),
				message: z.optional(z.union([z.array(z.string()), z.string()])),
				messages: z.optional(z.array(z.string())),
			}),
		),
	}),
);

/** 400/500 S2S processing error: `data.transactionId`. */
export const processingErrorBodySchema = lazySchema(() =>
	z.object({
		status: z.literal("error"),
		message: absentOrNull(text()),
		data: absentOrNull(z.object({ transactionId: absentOrNull(z.string()) })),
	}),
);

/** 422 "no S2S provider": top-level `transactionId: null`, no `errors`, no `data`. */
export const noProviderBodySchema = lazySchema(() =>
	z.object({
		status: z.literal("error"),
		transactionId: z.null(),
		message: absentOrNull(text()),
	}),
);

/** Checkout creation failure: `status: "error"`, null transactionId and paymentLink. */
export const checkoutErrorBodySchema = lazySchema(() =>
	z.object({
		status: z.literal("error"),
		transactionId: z.optional(z.null()),
		paymentLink: z.optional(z.null()),
		message: absentOrNull(text()),
	}),
);

/** Any other error body the gateway may send: `status: "error"` and a message. */
export const genericErrorBodySchema = lazySchema(() =>
	z.object({ status: z.literal("error"), message: absentOrNull(text()) }),
);
