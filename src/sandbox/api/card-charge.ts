import { ENDPOINTS } from "../../endpoints.js";
import { MESSAGES } from "../books/gateway-messages.js";
import { pagePath } from "../books/records.js";
import { processingFailed } from "../wire/spec-responses.js";
import { newTransaction } from "./create-transaction.js";
import { endpointPipeline } from "./endpoint.js";
import { ruleResponse } from "./rule-refusals.js";

/** POST /v2/card/api: an S2S card charge decided by the test card table. */
export const chargeCard = endpointPipeline(ENDPOINTS.card, {
	handle({ params, merchant, succeed }, { core, origin }) {
		const card = {
			number: params.cardNumber,
			month: params.cardMonth,
			year: params.cardYear,
			name: `${params.billingFirstName} ${params.billingLastName}`,
		};
		const charged = core.ledger.chargeCard(newTransaction(params, merchant, "card"), card);
		if (!charged.ok) return ruleResponse(charged.violation);
		const { transaction, decision } = charged.value;
		const { transactionId } = transaction;
		const respond = (status: string, message: string, url?: string) =>
			succeed({ transactionId, url }, { status, message });
		switch (decision.kind) {
			case "approved":
				return respond("success", MESSAGES.chargeCompleted);
			case "declined":
				return processingFailed(decision.httpStatus, decision.message, transactionId);
			case "three_ds":
				return respond("redirect", MESSAGES.chargeRedirect, `${origin}${pagePath("3ds", transaction)}`);
			case "pending":
				return respond("pending", "pending");
		}
	},
});
