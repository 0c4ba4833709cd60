import { fromMinorUnits, toMinorUnits } from "../../money/amount.js";
import { refundRequestSchema } from "../../schemas/requests.js";
import { type ApiReply, fieldError, ok } from "../replies.js";
import { isReply, validateFields } from "../validate.js";
import { type ApiContext, verifiedRequest } from "./context.js";

const show = (minor: number) => fromMinorUnits(minor).toFixed(2);

/**
 * POST /v2/refund. Rules: the transaction is the merchant's and successful; the
 * amount is at least 0.10 (schema) and at most paidAmount minus every refund not
 * rejected; a full-refund-only provider takes exactly the paid amount, once.
 */
export async function createRefund(ctx: ApiContext): Promise<ApiReply> {
	const { core } = ctx;
	const unknown = fieldError("transactionId", "does not match a transaction of this merchant");
	const verified = verifiedRequest(ctx, unknown);
	if (isReply(verified)) return verified;
	const checked = validateFields(refundRequestSchema(), verified.fields);
	if (isReply(checked)) return checked;
	const params = checked.value;
	const record = core.transaction(params.transactionId);
	if (!record || record.merchantId !== verified.merchant.merchantId) return unknown;
	if (record.status !== "successful") {
		return fieldError("transactionId", `must be a successful transaction (this one is ${record.status})`);
	}
	const amount = toMinorUnits(params.amount);
	const remaining = core.refundableMinor(record);
	const paid = record.fees?.paid ?? 0;
	if (record.provider?.fullRefundOnly && (amount !== paid || remaining !== paid)) {
		const full = `${show(paid)} ${record.currency}`;
		return fieldError("amount", `must be the full paid amount, ${full}, in one refund (its provider refunds in full)`);
	}
	if (remaining <= 0) return fieldError("amount", "cannot be refunded: nothing is left to refund on this transaction");
	if (amount > remaining)
		return fieldError(
			"amount",
			`must be at most the remaining refundable amount, ${show(remaining)} ${record.currency}`,
		);
	const refund = core.createRefund(record, amount, params.reason);
	return ok(
		core.signer.wrapped(
			"success",
			refund.message,
			{ refundId: refund.refundId, refundNumber: refund.refundNumber },
			verified.merchant.signVersion,
		),
	);
}
