import { ENDPOINTS } from "../../endpoints.js";
import { MESSAGES } from "../books/gateway-messages.js";
import { pagePath } from "../books/records.js";
import { checkoutFailed } from "../wire/spec-responses.js";
import { newTransaction } from "./create-transaction.js";
import { endpointPipeline } from "./endpoint.js";
import { ruleResponse } from "./rule-refusals.js";

/** POST /v2/checkout: a session on the hosted page; a DIRECT_POST one sends the buyer's browser there. */
export const openCheckout = endpointPipeline(ENDPOINTS.checkout, {
	handle({ params, merchant, form, succeed }, { core, origin }) {
		const expiresAt = params.expiresAt === undefined ? undefined : new Date(params.expiresAt);
		const opened = core.ledger.openCheckout(newTransaction(params, merchant, params.paymentMethod, expiresAt));
		if (!opened.ok) {
			const { violation } = opened;
			if (violation.rule !== "domain_not_allowed") return ruleResponse(violation);
			return checkoutFailed("The website's domain is not among the merchant's allowed domains.");
		}
		const { transactionId } = opened.value;
		const paymentLink = `${origin}${pagePath("pay", opened.value)}`;
		if ((params.connectionMode ?? (form ? "DIRECT_POST" : "API")) === "DIRECT_POST") return { redirect: paymentLink };
		const created = { status: "created" as const, transactionId, paymentLink, message: MESSAGES.checkoutCreated };
		return succeed(created);
	},
});
