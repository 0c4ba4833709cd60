import type { BooksClock } from "./clock.js";
import type { IdSource } from "./gateway-formats.js";
import { MESSAGES } from "./gateway-messages.js";
import type { LedgerChange } from "./ledger-types.js";
import type { MerchantAccount } from "./merchants.js";
import type { RefundRecord, RefundState, TransactionRecord, TransactionState } from "./records.js";
import { allowed, type RuleResult, refused } from "./rule-violations.js";

/**
 * The ledger's refunds: kept private, opened and decided by rule. A refund names its transaction and
 * the book indexes them by it: a transaction's refunds are not a part of the transaction, so saving a
 * refund saves all there is to know of it (there is no second copy to keep in step).
 */
export class RefundBook {
	readonly #refunds = new Map<string, RefundState>();
	/** Refund ids by transaction id, oldest first. */
	readonly #byTransaction = new Map<string, string[]>();
	readonly #ids: IdSource;
	readonly #clock: BooksClock;
	readonly #transactionOf: (transactionId: string) => TransactionState | undefined;
	readonly #onChange: (change: LedgerChange) => void;

	constructor(
		ids: IdSource,
		clock: BooksClock,
		transactionOf: (transactionId: string) => TransactionState | undefined,
		onChange: (change: LedgerChange) => void,
	) {
		this.#ids = ids;
		this.#clock = clock;
		this.#transactionOf = transactionOf;
		this.#onChange = onChange;
	}

	/** A refund by id, in either case. */
	get(refundId: string): RefundRecord | undefined {
		return this.#refunds.get(refundId.toLowerCase());
	}

	/** A transaction's refunds, oldest first. */
	of(transactionId: string): RefundRecord[] {
		return (this.#byTransaction.get(transactionId) ?? []).flatMap((id) => this.#refunds.get(id) ?? []);
	}

	/** Takes back refunds saved earlier, oldest first. */
	restore(refunds: readonly RefundState[]): void {
		for (const refund of refunds) this.#add(refund);
	}

	/** paidAmount minus every refund not rejected (refund_failed); held ones reserve their amount. */
	refundableMinor(transaction: TransactionRecord): number {
		let reserved = 0;
		for (const refund of this.of(transaction.transactionId))
			if (refund.status !== "refund_failed") reserved += refund.amountMinor;
		return (transaction.fees?.paid ?? 0) - reserved;
	}

	/**
	 * Opens a refund. Rules: a successful transaction; an amount at most what is left (paid minus every
	 * refund not rejected); a full-refund-only provider takes exactly the paid amount, once. A manual
	 * approval account holds it under review.
	 */
	open(
		transaction: TransactionState,
		approval: MerchantAccount["refundApproval"],
		amountMinor: number,
		reason: string | undefined,
	): RuleResult<RefundRecord> {
		if (transaction.status !== "successful") return refused({ rule: "not_refundable", status: transaction.status });
		const remaining = this.refundableMinor(transaction);
		const paid = transaction.fees?.paid ?? 0;
		const currency = transaction.currency;
		if (transaction.provider?.fullRefundOnly && (amountMinor !== paid || remaining !== paid)) {
			return refused({ rule: "full_refund_only", paidMinor: paid, currency });
		}
		if (remaining <= 0) return refused({ rule: "nothing_left_to_refund" });
		if (amountMinor > remaining) return refused({ rule: "exceeds_refundable", remainingMinor: remaining, currency });
		const now = this.#clock.now();
		const held = approval === "manual";
		const refund: RefundState = {
			refundId: this.#ids.ulid(now),
			refundNumber: this.#ids.readableNumber(now),
			transactionId: transaction.transactionId,
			amountMinor,
			reason: reason === "" ? undefined : reason,
			status: held ? "refund_under_review" : "refund_successful",
			message: held ? MESSAGES.refundHeld : null,
			createdAt: now,
		};
		this.#add(refund);
		this.#onChange({ kind: "refund", refund, transaction });
		return allowed(refund);
	}

	#add(refund: RefundState): void {
		this.#refunds.set(refund.refundId, refund);
		const ids = this.#byTransaction.get(refund.transactionId);
		if (ids) ids.push(refund.refundId);
		else this.#byTransaction.set(refund.transactionId, [refund.refundId]);
	}

	/** Approves or rejects a refund held for approval. Rule: it is under review. */
	decide(refundId: string, approve: boolean, message: string | undefined): RuleResult<RefundRecord> {
		const refund = this.#refunds.get(refundId.toLowerCase());
		const transaction = refund && this.#transactionOf(refund.transactionId);
		if (!refund || !transaction) return refused({ rule: "unknown_refund" });
		if (refund.status !== "refund_under_review") return refused({ rule: "not_under_review", status: refund.status });
		refund.status = approve ? "refund_successful" : "refund_failed";
		refund.message = approve ? null : (message ?? "The refund was rejected.");
		this.#onChange({ kind: "refund", refund, transaction });
		return allowed(refund);
	}
}
