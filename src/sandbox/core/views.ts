import type { Refund, Transaction } from "../../schemas/resources.js";
import { gatewayTime } from "../books/gateway-formats.js";
import { type ProviderAttempt, pagePath, type TransactionRecord } from "../books/records.js";
import { refundResource, transactionResource } from "../books/resources.js";
import type { SandboxCore } from "./sandbox-core.js";

/** A transaction as the sandbox sees it: the spec's resource plus what only the simulator knows. */
export type SandboxTransaction = Transaction & {
	/** Every provider attempt, auto-cascade included (the API shows only the final outcome). */
	readonly attempts: readonly ProviderAttempt[];
	/** The provider that handled the charge. */
	readonly provider: string | undefined;
	/** Checkout sessions: when the hosted page stops accepting payment. */
	readonly expiresAt: string | undefined;
	/** Checkout sessions: the hosted page link. */
	readonly paymentPath: string | undefined;
};

/** The test-facing view of a transaction: the spec's resource plus what only the simulator knows. */
export function transactionView(core: SandboxCore, transaction: TransactionRecord): SandboxTransaction {
	const { channel, expiresAt } = transaction;
	return {
		...transactionResource(transaction, core.merchants.of(transaction)),
		attempts: transaction.attempts.map((attempt) => ({ ...attempt })),
		provider: transaction.provider?.name,
		expiresAt: expiresAt ? gatewayTime(expiresAt) : undefined,
		paymentPath: channel === "checkout" ? pagePath("pay", transaction) : undefined,
	};
}

/** A refund's current state as the refund query shows it, or undefined. */
export function refundView(core: SandboxCore, refundId: string): Refund | undefined {
	const refund = core.ledger.refund(refundId);
	const transaction = refund && core.ledger.transaction(refund.transactionId);
	return refund && transaction ? refundResource(refund, transaction) : undefined;
}

/** A refund decision's result: the refund as it is now, or why it could not be decided. */
export type RefundDecision =
	| { ok: true; refund: Refund }
	| {
			ok: false;
			/** No refund has this id (as opposed to one that is not under review). */
			unknown: boolean;
			/** The rule, worded for a person: "is refund_successful; only a refund under review can be approved". */
			message: string;
	  };

/** Approves or rejects a refund held for approval; its IPN goes out as the gateway would send it. */
export function decideRefund(core: SandboxCore, refundId: string, approve: boolean, message?: string): RefundDecision {
	const { ledger } = core;
	const decided = ledger.decideRefund(refundId, approve, message);
	const transaction = decided.ok && ledger.transaction(decided.value.transactionId);
	if (decided.ok && transaction) return { ok: true, refund: refundResource(decided.value, transaction) };
	const verb = approve ? "approved" : "rejected";
	const status = !decided.ok && decided.violation.rule === "not_under_review" ? decided.violation.status : undefined;
	const rule = status ? `is ${status}; only a refund under review can be ${verb}` : "names no refund in this sandbox";
	return { ok: false, unknown: status === undefined, message: `${refundId} ${rule}` };
}
