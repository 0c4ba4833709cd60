import * as z from "zod/mini";
import { lazySchema } from "./lazy.js";
import { absentOrNull, id } from "./resources.js";

/**
 * The signed fields of the three creation responses, checked after verification, and the typed
 * results the client returns for them (built by the resource methods; the query responses are the
 * `Transaction` and `Refund` of resources.ts). Error responses are unsigned and have no schema: their
 * status and a few fields only pick the error class. Built on first use (lazy.ts).
 */

/** POST /v2/checkout success (connectionMode API), fields after verification. */
export const checkoutCreatedFieldsSchema = lazySchema(() =>
	z.object({
		status: z.literal("created"),
		transactionId: id(),
		paymentLink: id(),
		message: absentOrNull(z.string()),
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

/** The verified `data` of an S2S charge response. */
export const cardChargeDataSchema = lazySchema(() =>
	z.object({
		transactionId: id(),
		/** 3DS page, present when status is `redirect`. */
		url: z.optional(id()),
	}),
);

interface ChargeBase {
	/** The transaction's id (ULID), signed: query it, or match its IPN. */
	transactionId: string;
	/** The gateway's message. Unsigned (it sits in the response's wrapper): show it, never decide on it. */
	message: string | null;
}
/**
 * Charged without 3DS, as the response's wrapper `status` says. That status is
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
	/** The 3DS page (the response's `data.url`, signed). */
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
/** The verified `data` of a refund creation response. */
export const refundCreatedDataSchema = lazySchema(() => z.object({ refundId: id(), refundNumber: id() }));

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
