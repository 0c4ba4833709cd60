import { ENDPOINTS } from "../../endpoints.js";
import { toMinorUnits } from "../../money/amount.js";
import { endpointPipeline } from "./endpoint.js";
import { ruleResponse } from "./rule-refusals.js";

/** POST /v2/refund: a refund of a successful payment (the ledger's refund rules decide). */
export const refundPayment = endpointPipeline(ENDPOINTS.refund, {
	unknownSubject: ruleResponse({ rule: "unknown_transaction" }),
	handle({ params, merchant, succeed }, { core }) {
		const amountMinor = toMinorUnits(params.amount);
		const made = core.ledger.refundPayment(merchant.merchantId, params.transactionId, amountMinor, params.reason);
		if (!made.ok) return ruleResponse(made.violation);
		const { refundId, refundNumber, message } = made.value;
		return succeed({ refundId, refundNumber }, { status: "success", message });
	},
});
