import { fromMinorUnits } from "../money/amount.js";
import { gatewayTime } from "./formats.js";
import type { MerchantAccount, RefundRecord, TransactionRecord } from "./state.js";
import { refundStatuses, transactionStatuses } from "./statuses.js";

/**
 * The wire form of the spec's resources, built from the sandbox's records.
 * Transaction query, transaction IPN, refund query and refund IPN all use these,
 * so a field is written in one place.
 */

export function transactionFields(record: TransactionRecord, merchant: MerchantAccount): Record<string, unknown> {
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
		transactionDocuments: record.request.transactionDocuments,
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

export function refundFields(refund: RefundRecord, transaction: TransactionRecord): Record<string, unknown> {
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
export function callbackFields(record: TransactionRecord): Record<string, unknown> {
	return {
		status: record.status,
		transactionId: record.transactionId,
		ref: record.orderRef,
		amount: fromMinorUnits(record.amountMinor),
		currency: record.currency,
	};
}
