import type { EndpointDefinition, EndpointName } from "../endpoints.js";
import { fromMinorUnits } from "../money/amount.js";
import type { LazyOutput } from "../schemas/lazy.js";
import type { callbackResultSchema } from "../schemas/resources.js";
import { gatewayTime } from "./formats.js";
import type { MerchantAccount } from "./merchants.js";
import type { RefundRecord, TransactionRecord } from "./state.js";
import { refundStatuses, transactionStatuses } from "./statuses.js";

/**
 * The wire form of the sandbox's answers, typed by the endpoint table's answer
 * schemas: the very types the client parses them into. Transaction query and
 * transaction IPN, refund query and refund IPN share a builder, so a field is
 * written in one place.
 */

/** The signed fields of an endpoint's success answer (the `data` of a wrapped one). */
export type AnswerOf<N extends EndpointName> = LazyOutput<EndpointDefinition<N>["answer"]>;
/** The decoded fields of a callback redirect. */
export type CallbackFields = LazyOutput<typeof callbackResultSchema>;

/** The Transaction resource: transaction query answer and transaction IPN. */
export function transactionAnswer(record: TransactionRecord, merchant: MerchantAccount): AnswerOf<"transactionQuery"> {
	const fees = record.fees;
	const money = (minor: number | undefined) => fromMinorUnits(minor ?? 0);
	return {
		merchantId: record.merchantId,
		transactionId: record.transactionId,
		transactionNumber: record.transactionNumber,
		ref: record.orderRef,
		currency: record.currency,
		amount: fromMinorUnits(record.amountMinor),
		paidAmount: money(fees?.paid),
		settlementAmount: money(fees?.settlement),
		estimationSettlementAt: fees ? gatewayTime(fees.settlementAt) : null,
		fees: {
			buyer: money(fees?.buyer),
			seller: money(fees?.seller),
			rolling: money(fees?.rolling),
			operate: money(fees?.operate),
			estimationRollingReleaseAt: fees ? gatewayTime(fees.rollingReleaseAt) : null,
		},
		status: record.status,
		statusCode: transactionStatuses[record.status].code,
		metadata: record.request.metadata,
		transactionDocuments: record.request.transactionDocuments?.map((document) => ({ ...document })),
		paymentMethodDetails: record.card
			? {
					displayName: `${record.card.type.toUpperCase()} ending ${record.card.lastFourDigits}`,
					group: "card",
					family: "card",
					type: record.card.type,
					card: { ...record.card },
				}
			: null,
		message: record.message,
		descriptor: merchant.descriptor,
		transactionCreatedAt: gatewayTime(record.createdAt),
		originalTransactionCreatedAt: record.providerCreatedAt ? gatewayTime(record.providerCreatedAt) : null,
	};
}

/** The Refund resource: refund query answer and refund IPN. */
export function refundAnswer(refund: RefundRecord, transaction: TransactionRecord): AnswerOf<"refundQuery"> {
	return {
		transactionId: transaction.transactionId,
		ref: transaction.orderRef,
		refundId: refund.refundId,
		currency: transaction.currency,
		refundAmount: fromMinorUnits(refund.amountMinor),
		status: refund.status,
		statusCode: refundStatuses[refund.status].code,
		metadata: transaction.request.metadata,
		reason: refund.reason,
		message: refund.message,
		originalRefundCreatedAt: gatewayTime(refund.createdAt),
		refundCreatedAt: gatewayTime(refund.createdAt),
		transactionCreatedAt: gatewayTime(transaction.createdAt),
	};
}

/** The decoded fields of a callback redirect (D5). */
export function callbackFields(record: TransactionRecord): CallbackFields {
	return {
		status: record.status,
		transactionId: record.transactionId,
		ref: record.orderRef,
		amount: fromMinorUnits(record.amountMinor),
		currency: record.currency,
	};
}
