import { toMinorUnits } from "../../money/amount.js";
import { type CardInput, decideCharge, storedCard } from "./charge-decision.js";
import { computeFees, DAY_MS } from "./fees.js";
import { IdSource, randomToken } from "./gateway-formats.js";
import type { Charged, LedgerOptions, NewTransaction } from "./ledger-types.js";
import { domainAllowed, type MerchantAccount } from "./merchants.js";
import {
	awaitsThreeDs,
	type Channel,
	type ProviderAttempt,
	type RefundRecord,
	type RefundState,
	type TransactionRecord,
	type TransactionState,
} from "./records.js";
import { RefundBook } from "./refund-book.js";
import { allowed, type RuleResult, refused } from "./rule-violations.js";
import { type SandboxTransactionStatus, transactionStatuses } from "./statuses.js";

/**
 * The gateway's books: transactions and refunds, kept private. Every change goes
 * through a command that enforces the business rules and returns the result or
 * the rule it refused on; time-driven changes (expiry, pending settlement) run
 * on the sandbox clock. The refund rules live in `RefundBook`.
 */
export class Ledger {
	readonly #transactions = new Map<string, TransactionState>();
	readonly #orderRefs = new Map<string, Set<string>>();
	readonly #ids = new IdSource();
	readonly #refunds: RefundBook;
	readonly #options: LedgerOptions;

	constructor(options: LedgerOptions) {
		this.#options = options;
		const transactionOf = (id: string) => this.#transactions.get(id);
		this.#refunds = new RefundBook(this.#ids, options.clock, transactionOf, options.onChange);
	}

	/** A transaction by id, in either case (the gateway writes ULIDs in lowercase; D12), expired if it is due. */
	transaction(transactionId: string): TransactionRecord | undefined {
		const state = this.#transactions.get(transactionId.toLowerCase());
		if (state) this.#expireIfDue(state);
		return state;
	}

	/** A transaction of this merchant, or undefined (another merchant's is as good as unknown). */
	transactionOf(merchantId: string, transactionId: string): TransactionRecord | undefined {
		const found = this.transaction(transactionId);
		return found?.merchantId === merchantId ? found : undefined;
	}

	/** Every transaction, oldest first. */
	transactions(): TransactionRecord[] {
		return [...this.#transactions.values()].map((state) => {
			this.#expireIfDue(state);
			return state;
		});
	}

	/** A refund by id, in either case. */
	refund(refundId: string): RefundRecord | undefined {
		return this.#refunds.get(refundId);
	}

	/** A transaction's refunds, oldest first. */
	refundsOf(transaction: TransactionRecord): RefundRecord[] {
		return this.#refunds.of(transaction.transactionId);
	}

	/** The merchant that owns a transaction or a refund: whose key must verify a request naming it. */
	ownerOf(subject: { transactionId?: string | undefined; refundId?: string | undefined }): string | undefined {
		const refund = subject.refundId === undefined ? undefined : this.#refunds.get(subject.refundId);
		const transactionId = subject.transactionId ?? refund?.transactionId;
		return transactionId === undefined ? undefined : this.#transactions.get(transactionId.toLowerCase())?.merchantId;
	}

	/** The hosted-page session a link leads to, when its token matches. */
	linkedSession(transactionId: string, token: string | null | undefined): TransactionRecord | undefined {
		const found = this.transaction(transactionId);
		return found && token && token === found.pageToken ? found : undefined;
	}

	/** Opens a hosted checkout session. Rules: a new orderRef, an expiry after now, an allowed domain. */
	openCheckout(input: NewTransaction): RuleResult<TransactionRecord> {
		const admitted = this.#admit(input);
		if (!admitted.ok) return admitted;
		return allowed(this.#open(input, "checkout"));
	}

	/** A server-to-server card charge. Rules: an S2S provider, then those of `openCheckout`. */
	chargeCard(input: NewTransaction, card: CardInput): RuleResult<Charged> {
		const providers = input.merchant.providers.filter((provider) => provider.kind === "s2s");
		if (providers.length === 0) return refused({ rule: "no_s2s_provider" });
		const admitted = this.#admit(input);
		if (!admitted.ok) return admitted;
		return allowed(this.#charge(this.#open(input, "s2s"), card, providers));
	}

	/** The buyer pays on the hosted page (any of the merchant's providers may take it). */
	payOnPage(transactionId: string, card: CardInput): RuleResult<Charged> {
		const state = this.#payable(transactionId);
		if (!state.ok) return state;
		return allowed(this.#charge(state.value, card, this.#options.merchants.of(state.value).providers));
	}

	/** The buyer picks "Simulate failure" on the hosted page: the first provider declines. */
	failOnPage(transactionId: string): RuleResult<TransactionRecord> {
		const state = this.#payable(transactionId);
		if (!state.ok) return state;
		const provider = this.#options.merchants.of(state.value).providers[0];
		const message = "Declined (simulated on the hosted page).";
		state.value.provider = provider;
		if (provider) state.value.attempts.push({ provider: provider.name, outcome: "declined", message });
		this.#finish(state.value, "failed", message);
		return state;
	}

	/** The buyer cancels on the hosted page. */
	cancelOnPage(transactionId: string): RuleResult<TransactionRecord> {
		const state = this.#payable(transactionId);
		if (state.ok) this.#finish(state.value, "canceled", "The buyer canceled the payment.");
		return state;
	}

	/** The buyer's 3-D Secure result. Rule: the transaction waits for it. */
	completeThreeDs(transactionId: string, passed: boolean): RuleResult<TransactionRecord> {
		const found = this.#awaitingThreeDs(transactionId);
		if (found.ok)
			this.#providerAnswered(found.value, passed ? "approved" : "declined", "3-D Secure authentication failed.");
		return found;
	}

	/** The buyer cancels on the 3-D Secure page. Rule: the transaction waits for 3-D Secure. */
	cancelThreeDs(transactionId: string): RuleResult<TransactionRecord> {
		const found = this.#awaitingThreeDs(transactionId);
		if (found.ok) this.#finish(found.value, "canceled", "The buyer canceled the payment during 3-D Secure.");
		return found;
	}

	#awaitingThreeDs(transactionId: string): RuleResult<TransactionState> {
		const state = this.#transactions.get(transactionId.toLowerCase());
		if (!state) return refused({ rule: "unknown_transaction" });
		return awaitsThreeDs(state) ? allowed(state) : refused({ rule: "not_awaiting_three_ds", status: state.status });
	}

	/** Refunds part or all of a successful payment of this merchant's (see `RefundBook.open` for the rules). */
	refundPayment(
		merchantId: string,
		transactionId: string,
		amountMinor: number,
		reason: string | undefined,
	): RuleResult<RefundRecord> {
		const state = this.#transactions.get(transactionId.toLowerCase());
		if (!state || state.merchantId !== merchantId) return refused({ rule: "unknown_transaction" });
		return this.#refunds.open(state, this.#options.merchants.of(state).refundApproval, amountMinor, reason);
	}

	/** The merchant's decision on a held refund: refund_successful, or refund_failed (refundable again). */
	decideRefund(refundId: string, approve: boolean, message?: string): RuleResult<RefundRecord> {
		return this.#refunds.decide(refundId, approve, message);
	}

	/**
	 * Takes back records saved earlier, oldest first, into an empty ledger, and re-arms what
	 * waits on the clock: session expiry and pending settlements (those already due run now,
	 * and report their change as any other). Restoring reports no change of its own.
	 */
	restore(transactions: readonly TransactionState[], refunds: readonly RefundState[]): void {
		for (const state of transactions) this.#add(state);
		this.#refunds.restore(refunds);
		for (const state of transactions) this.#arm(state);
	}

	#admit(input: NewTransaction): RuleResult<undefined> {
		if (this.#orderRefs.get(input.merchant.merchantId)?.has(input.orderRef))
			return refused({ rule: "order_ref_taken" });
		if (input.expiresAt !== undefined && input.expiresAt.getTime() <= this.#options.clock.nowMs()) {
			return refused({ rule: "expiry_not_in_future" });
		}
		if (!domainAllowed(input.merchant, input.site.url))
			return refused({ rule: "domain_not_allowed", field: input.site.field });
		return allowed(undefined);
	}

	#open(input: NewTransaction, channel: Channel): TransactionState {
		const now = this.#options.clock.now();
		const state: TransactionState = {
			merchantId: input.merchant.merchantId,
			transactionId: this.#ids.ulid(now),
			transactionNumber: this.#ids.readableNumber(now),
			orderRef: input.orderRef,
			currency: input.currency,
			amountMinor: toMinorUnits(input.amount),
			channel,
			request: input.request,
			status: "incomplete",
			pendingOn: undefined,
			settlement: undefined,
			message: null,
			createdAt: now,
			providerCreatedAt: undefined,
			expiresAt: channel === "checkout" ? (input.expiresAt ?? new Date(now.getTime() + DAY_MS)) : undefined,
			fees: undefined,
			card: undefined,
			provider: undefined,
			attempts: [],
			pageToken: randomToken(),
		};
		this.#add(state);
		this.#options.onChange({ kind: "transaction", transaction: state, final: false });
		this.#arm(state);
		return state;
	}

	#add(state: TransactionState): void {
		this.#transactions.set(state.transactionId, state);
		const refs = this.#orderRefs.get(state.merchantId) ?? new Set<string>();
		this.#orderRefs.set(state.merchantId, refs.add(state.orderRef));
	}

	/** The session, if it can still be paid: incomplete and not past expiresAt (expiring it now if it is). */
	#payable(transactionId: string): RuleResult<TransactionState> {
		const state = this.#transactions.get(transactionId.toLowerCase());
		if (!state) return refused({ rule: "unknown_transaction" });
		this.#expireIfDue(state);
		if (state.status === "incomplete") return allowed(state);
		return refused({ rule: "session_closed", status: state.status, awaitingThreeDs: awaitsThreeDs(state) });
	}

	/** Asks the providers, records what they decided and moves the transaction on. */
	#charge(state: TransactionState, card: CardInput, providers: MerchantAccount["providers"]): Charged {
		const { clock } = this.#options;
		const decision = decideCharge(card, providers, this.#options.merchants.of(state).autoCascade, clock.now());
		state.card = storedCard(card);
		state.provider = decision.provider;
		state.attempts.push(...decision.attempts);
		state.providerCreatedAt ??= clock.now();
		switch (decision.kind) {
			case "approved":
				this.#finish(state, "successful", null);
				break;
			case "declined":
				this.#finish(state, "failed", decision.message);
				break;
			case "three_ds":
				state.pendingOn = "three_ds";
				this.#setStatus(state, "pending", "Waiting for the buyer's 3-D Secure authentication.");
				break;
			case "pending": {
				state.pendingOn = "provider";
				const at = new Date(clock.nowMs() + this.#options.pendingDelayMs);
				state.settlement = { at, outcome: decision.eventually };
				this.#setStatus(state, "pending", "pending");
				this.#arm(state);
				break;
			}
		}
		return { transaction: state, decision };
	}

	/** Puts on the clock what the transaction waits for: its session's expiry, or its pending charge's answer. */
	#arm(state: TransactionState): void {
		const { clock } = this.#options;
		if (state.status === "incomplete" && state.expiresAt)
			clock.schedule(state.expiresAt.getTime(), () => this.#expireIfDue(state));
		else if (state.status === "pending" && state.pendingOn === "provider" && state.settlement)
			clock.schedule(state.settlement.at.getTime(), () => this.#settlePending(state));
	}

	/** The provider's later answer to a pending charge. */
	#settlePending(state: TransactionState): void {
		const outcome = state.settlement?.outcome;
		if (state.status === "pending" && state.pendingOn === "provider" && outcome)
			this.#providerAnswered(state, outcome, "Declined after review.");
	}

	/** The provider's answer after the charge (3-D Secure, a pending charge): one more attempt, then a final status. */
	#providerAnswered(state: TransactionState, outcome: ProviderAttempt["outcome"], declined: string): void {
		const message = outcome === "approved" ? null : declined;
		state.attempts.push({ provider: state.provider?.name ?? "provider", outcome, message });
		this.#finish(state, outcome === "approved" ? "successful" : "failed", message);
	}

	#expireIfDue(state: TransactionState): void {
		const due = state.expiresAt && state.expiresAt.getTime() <= this.#options.clock.nowMs();
		if (state.status === "incomplete" && due) {
			this.#finish(state, "expired", "The checkout session expired before the buyer paid.");
		}
	}

	/** A terminal state: fees on success, then the change that sends the transaction IPN. */
	#finish(state: TransactionState, status: SandboxTransactionStatus, message: string | null): void {
		if (transactionStatuses[state.status].terminal) return;
		if (status === "successful") {
			const { fees } = this.#options.merchants.of(state);
			state.fees = computeFees(state.amountMinor, state.request.feeBySeller, fees, this.#options.clock.now());
		}
		state.pendingOn = undefined;
		state.settlement = undefined;
		this.#setStatus(state, status, message);
	}

	#setStatus(state: TransactionState, status: SandboxTransactionStatus, message: string | null): void {
		state.status = status;
		state.message = message;
		this.#options.onChange({ kind: "transaction", transaction: state, final: transactionStatuses[status].terminal });
	}
}
