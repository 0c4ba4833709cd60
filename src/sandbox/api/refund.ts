import { ENDPOINTS } from "../../endpoints.js";
import { toMinorUnits } from "../../money/amount.js";
import { fieldError } from "../wire/spec-responses.js";
import { endpointPipeline } from "./endpoint.js";
import { ruleResponse } from "./rule-refusals.js";

/** POST /v2/refund: a refund of a successful payment (the ledger's refund rules decide). */
export const refundPayment = endpointPipeline(ENDPOINTS.refund, {
	unknownSubject: fieldError("transactionId", "does not match a transaction of this merchant"),
	handle({ params, merchant }, { core }) {
		const amountMinor = toMinorUnits(params.amount);
		const made = core.ledger.refundPayment(merchant.merchantId, params.transactionId, amountMinor, params.reason);
		if (!made.ok) return ruleResponse(made.violation);
		const { refundId, refundNumber, message } = made.value;
		const wrapper = { status: "success", message };
		return core.signer.successResponse("refund", { refundId, refundNumber }, merchant.signVersion, wrapper);
	},
});
