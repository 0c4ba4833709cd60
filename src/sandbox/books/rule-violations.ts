import type { SandboxRefundStatus, SandboxTransactionStatus } from "./statuses.js";

/**
 * The business rules a ledger command can refuse on. Each says which rule
 * failed and the facts a response needs; the API and the pages word it their way.
 */
export type RuleViolation =
	/** The merchant already used this orderRef. */
	| { rule: "order_ref_taken" }
	/** A checkout's expiresAt is not after the sandbox's now. */
	| { rule: "expiry_not_in_future" }
	/** The site's host is not among the merchant's allowed domains; `field` is the URL that was checked. */
	| { rule: "domain_not_allowed"; field: "websiteUrl" | "callbackUrl" }
	/** The merchant has no provider that takes server-to-server card charges. */
	| { rule: "no_s2s_provider" }
	/** No such transaction, or not this merchant's. */
	| { rule: "unknown_transaction" }
	/** The session cannot be paid any more: expired, processed, or waiting for 3-D Secure. */
	| { rule: "session_closed"; status: SandboxTransactionStatus; awaitingThreeDs: boolean }
	/** The transaction is not waiting for the buyer's 3-D Secure. */
	| { rule: "not_awaiting_three_ds"; status: SandboxTransactionStatus }
	/** Only a successful transaction can be refunded. */
	| { rule: "not_refundable"; status: SandboxTransactionStatus }
	/** Its provider refunds the full paid amount only, in one refund. */
	| { rule: "full_refund_only"; paidMinor: number; currency: string }
	/** Everything paid has been refunded (or is held for approval). */
	| { rule: "nothing_left_to_refund" }
	/** The amount is more than what is left to refund. */
	| { rule: "exceeds_refundable"; remainingMinor: number; currency: string }
	/** No such refund. */
	| { rule: "unknown_refund" }
	/** Only a refund under review can be approved or rejected. */
	| { rule: "not_under_review"; status: SandboxRefundStatus };

/** What a ledger command returns: its result, or the rule it refused on. */
export type RuleResult<T> = { ok: true; value: T } | { ok: false; violation: RuleViolation };

export const allowed = <T>(value: T): RuleResult<T> => ({ ok: true, value });
export const refused = <T = never>(violation: RuleViolation): RuleResult<T> => ({ ok: false, violation });
