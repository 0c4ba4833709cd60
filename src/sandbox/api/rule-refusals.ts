import { formatMoney } from "../books/gateway-formats.js";
import type { RuleViolation } from "../books/rule-violations.js";
import { type ApiResponse, badRequest, fieldError, noS2SProvider } from "../wire/spec-responses.js";

/** The API's response to a ledger rule violation, worded as the gateway words its refusals (D12). */
export function ruleResponse(violation: RuleViolation): ApiResponse {
	switch (violation.rule) {
		case "order_ref_taken":
			return fieldError("orderRef", "has already been taken");
		case "expiry_not_in_future":
			return fieldError("expiresAt", "must be a date after now");
		case "domain_not_allowed":
			return fieldError(violation.field, "must be on one of the merchant's allowed domains");
		case "no_s2s_provider":
			return noS2SProvider();
		case "unknown_transaction":
			return fieldError("transactionId", "does not match a transaction of this merchant");
		case "not_refundable":
			return fieldError("transactionId", `must be a successful transaction (this one is ${violation.status})`);
		case "full_refund_only": {
			const full = formatMoney(violation.paidMinor, violation.currency);
			return fieldError(
				"amount",
				`must be the full paid amount, ${full}, in one refund (its provider refunds in full)`,
			);
		}
		case "nothing_left_to_refund":
			return fieldError("amount", "cannot be refunded: nothing is left to refund on this transaction");
		case "exceeds_refundable": {
			const remaining = formatMoney(violation.remainingMinor, violation.currency);
			return fieldError("amount", `must be at most the remaining refundable amount, ${remaining}`);
		}
		case "unknown_refund":
		case "session_closed":
		case "not_awaiting_three_ds":
		case "not_under_review":
			// Rules of the hosted pages and of the sandbox's own controls: no API request meets them.
			return badRequest(`The request breaks the sandbox rule ${violation.rule}.`, 409);
	}
}
