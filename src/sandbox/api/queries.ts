import { refundQueryRequestSchema, transactionQueryRequestSchema } from "../../schemas/requests.js";
import { type ApiReply, notFound, ok } from "../replies.js";
import { refundFields, transactionFields } from "../resources.js";
import { isReply, validateFields } from "../validate.js";
import { type ApiContext, verifiedRequest } from "./context.js";

/** POST /v2/checkout/query: the Transaction resource, flat, in the account's signing version. */
export async function queryTransaction(ctx: ApiContext): Promise<ApiReply> {
	const { core } = ctx;
	const unknown = notFound("No transaction with this transactionId for this merchant.");
	const verified = verifiedRequest(ctx, unknown);
	if (isReply(verified)) return verified;
	const checked = validateFields(transactionQueryRequestSchema(), verified.fields);
	if (isReply(checked)) return checked;
	const record = core.transaction(checked.value.transactionId);
	if (!record || record.merchantId !== verified.merchant.merchantId) return unknown;
	core.expireIfUnpaid(record);
	return ok(core.signer.flat(transactionFields(record, verified.merchant), verified.merchant.signVersion));
}

/** POST /v2/refund/query: the Refund resource, wrapped, in the account's signing version. */
export async function queryRefund(ctx: ApiContext): Promise<ApiReply> {
	const { core } = ctx;
	const unknown = notFound("No refund with this refundId for this merchant.");
	const verified = verifiedRequest(ctx, unknown);
	if (isReply(verified)) return verified;
	const checked = validateFields(refundQueryRequestSchema(), verified.fields);
	if (isReply(checked)) return checked;
	const refund = core.refund(checked.value.refundId);
	const record = refund && core.transaction(refund.transactionId);
	if (!refund || !record || record.merchantId !== verified.merchant.merchantId) return unknown;
	return ok(
		core.signer.wrapped("success", "Refund found.", refundFields(refund, record), verified.merchant.signVersion),
	);
}
