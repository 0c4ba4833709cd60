import type { ChargeDecision } from "./charge-decision.js";
import type { BooksClock } from "./clock.js";
import type { MerchantAccount, MerchantRegistry } from "./merchants.js";
import type { RefundRecord, SessionRequest, TransactionRecord } from "./records.js";

/** A transaction to open, its fields validated by the request schema. */
export interface NewTransaction {
	merchant: MerchantAccount;
	orderRef: string;
	currency: string;
	/** In major units, as the request gave it (at most 2 decimals). */
	amount: number;
	/** Checkout sessions: when the hosted page stops accepting payment. @default a day after creation */
	expiresAt?: Date | undefined;
	request: SessionRequest;
	/** The site the request came from, which must be on the merchant's allowed domains, and its field. */
	site: { field: "websiteUrl" | "callbackUrl"; url: string };
}

/** A charge and what the providers decided about it. */
export interface Charged {
	transaction: TransactionRecord;
	decision: ChargeDecision;
}

/** What the ledger reports after each change: the sandbox's events and IPNs follow from it. */
export type LedgerChange =
	/** `final`: the transaction reached a terminal status, so its IPN goes out. */
	| { kind: "transaction"; transaction: TransactionRecord; final: boolean }
	| { kind: "refund"; refund: RefundRecord; transaction: TransactionRecord };

export interface LedgerOptions {
	clock: BooksClock;
	merchants: MerchantRegistry;
	/** Sandbox-clock milliseconds between a pending charge and its final outcome. */
	pendingDelayMs: number;
	onChange: (change: LedgerChange) => void;
}
