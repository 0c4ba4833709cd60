import { refundQueryRequestSchema, transactionQueryRequestSchema } from "../../schemas/requests.js";
import { type ApiReply, notFound, ok } from "../replies.js";
import { refundFields, transactionFields } from "../resources.js";
import { isReply, validateFields } from "../validate.js";
import { type ApiContext, verifiedRequest } from "./context.js";

/** POST /v2/checkout/query: the Transaction resource, flat, in the account's signing version. */
export async function queryTransaction(ctx: ApiContext): Promise<ApiReply> {
	const { core } = ctx;
	const verified = await verifiedRequest(ctx, false);
	if (isReply(verified)) return verified;
	const checked = validateFields(transactionQueryRequestSchema(), verified.fields);
	if (isReply(checked)) return checked;
	const record = core.transactions.get(checked.value.transactionId);
	if (!record || record.merchantId !== verified.merchant.merchantId) return notFound("No transaction with this transactionId for this merchant.");
	core.expireIfUnpaid(record);
	return ok(core.signer.flat(transactionFields(record, verified.merchant), verified.merchant.signVersion));
}

/** POST /v2/refund/query: the Refund resource, wrapped, in the account's signing version. */
export async function queryRefund(ctx: ApiContext): Promise<ApiReply> {
	const { core } = ctx;
	const verified = await verifiedRequest(ctx, false);
	if (isReply(verified)) return verified;
	const checked = validateFields(refundQueryRequestSchema(), verified.fields);
	if (isReply(checked)) return checked;
	const refund = core.refunds.get(checked.value.refundId);
	const record = refund && core.transactions.get(refund.transactionId);
	if (!refund || !record || record.merchantId !== verified.merchant.merchantId) return notFound("No refund with this refundId for this merchant.");
	return ok(core.signer.wrapped("success", "Refund found.", refundFields(refund, record), verified.merchant.signVersion));
}
