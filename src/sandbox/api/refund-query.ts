import { ENDPOINTS } from "../../endpoints.js";
import { refundResource } from "../books/resources.js";
import { notFound } from "../wire/spec-responses.js";
import { endpointPipeline } from "./endpoint.js";

const noSuchRefund = notFound("No refund with this refundId for this merchant.");

/** POST /v2/refund/query: the Refund resource, wrapped, in the account's signing version. */
export const queryRefund = endpointPipeline(ENDPOINTS.refundQuery, {
	unknownSubject: noSuchRefund,
	handle({ params, merchant, succeed }, { core }) {
		const refund = core.ledger.refund(params.refundId);
		const transaction = refund && core.ledger.transactionOf(merchant.merchantId, refund.transactionId);
		if (!refund || !transaction) return noSuchRefund;
		return succeed(refundResource(refund, transaction), { status: "success", message: "Refund found." });
	},
});
