import { ENDPOINTS } from "../../endpoints.js";
import { transactionResource } from "../books/resources.js";
import { notFound } from "../wire/spec-responses.js";
import { endpointPipeline } from "./endpoint.js";

const noSuchTransaction = notFound("No transaction with this transactionId for this merchant.");

/** POST /v2/checkout/query: the Transaction resource, flat, in the account's signing version. */
export const queryTransaction = endpointPipeline(ENDPOINTS.transactionQuery, {
	unknownSubject: noSuchTransaction,
	handle({ params, merchant, succeed }, { core }) {
		const transaction = core.ledger.transactionOf(merchant.merchantId, params.transactionId);
		return transaction ? succeed(transactionResource(transaction, merchant)) : noSuchTransaction;
	},
});
