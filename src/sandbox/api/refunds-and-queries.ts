import { ENDPOINTS } from "../../endpoints.js";
import { toMinorUnits } from "../../money/amount.js";
import { refundAnswer, transactionAnswer } from "../answers.js";
import { fieldError, notFound, ok } from "../replies.js";
import { endpointPipeline } from "./endpoint.js";
import { ruleReply } from "./rule-replies.js";

const noSuchTransaction = notFound("No transaction with this transactionId for this merchant.");
const noSuchRefund = notFound("No refund with this refundId for this merchant.");

/** POST /v2/checkout/query: the Transaction resource, flat, in the account's signing version. */
export const queryTransaction = endpointPipeline(ENDPOINTS.transactionQuery, {
	unknownSubject: noSuchTransaction,
	handle({ params, merchant }, { core }) {
		const transaction = core.ledger.transactionOf(merchant.merchantId, params.transactionId);
		if (!transaction) return noSuchTransaction;
		return ok(core.signer.answer("transactionQuery", transactionAnswer(transaction, merchant), merchant.signVersion));
	},
});

/** POST /v2/refund: a refund of a successful payment (the ledger's refund rules decide). */
export const refundPayment = endpointPipeline(ENDPOINTS.refund, {
	unknownSubject: fieldError("transactionId", "does not match a transaction of this merchant"),
	handle({ params, merchant }, { core }) {
		const amountMinor = toMinorUnits(params.amount);
		const made = core.ledger.refundPayment(merchant.merchantId, params.transactionId, amountMinor, params.reason);
		if (!made.ok) return ruleReply(made.violation);
		const { refundId, refundNumber, message } = made.value;
		const wrapper = { status: "success", message };
		return ok(core.signer.answer("refund", { refundId, refundNumber }, merchant.signVersion, wrapper));
	},
});

/** POST /v2/refund/query: the Refund resource, wrapped, in the account's signing version. */
export const queryRefund = endpointPipeline(ENDPOINTS.refundQuery, {
	unknownSubject: noSuchRefund,
	handle({ params, merchant }, { core }) {
		const refund = core.ledger.refund(params.refundId);
		const transaction = refund && core.ledger.transactionOf(merchant.merchantId, refund.transactionId);
		if (!refund || !transaction) return noSuchRefund;
		const wrapper = { status: "success", message: "Refund found." };
		return ok(core.signer.answer("refundQuery", refundAnswer(refund, transaction), merchant.signVersion, wrapper));
	},
});
