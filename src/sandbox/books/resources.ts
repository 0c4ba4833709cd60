import type { ResponseDataOf } from "../../endpoints.js";
import { fromMinorUnits } from "../../money/amount.js";
import type { LazyOutput } from "../../schemas/lazy.js";
import type { callbackResultSchema } from "../../schemas/resources.js";
import { gatewayTime } from "./gateway-formats.js";
import type { MerchantAccount } from "./merchants.js";
import type { RefundRecord, TransactionRecord } from "./records.js";
import { refundStatuses, transactionStatuses } from "./statuses.js";

/** The signed fields of the sandbox's success responses, typed by the endpoint table's response schemas. */

/** The decoded fields of a callback redirect. */
export type CallbackFields = LazyOutput<typeof callbackResultSchema>;

/** The Transaction resource: transaction query response and transaction IPN. */
export function transactionResource(
	record: TransactionRecord,
	merchant: MerchantAccount,
): ResponseDataOf<"transactionQuery"> {
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

/** The Refund resource: refund query response and refund IPN. */
export function refundResource(refund: RefundRecord, transaction: TransactionRecord): ResponseDataOf<"refundQuery"> {
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
