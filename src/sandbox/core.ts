import { toMinorUnits } from "../money/amount.js";
import { sealCallbackUrl } from "../signing/callback-url.js";
import { toPublicKeys } from "../signing/keys.js";
import { type CardInput, type ChargeDecision, storedCard } from "./charge.js";
import { ControllableClock } from "./clock.js";
import { FaultQueue } from "./faults.js";
import { computeFees, feeModel } from "./fees.js";
import { IdSource, randomToken } from "./formats.js";
import { Notifier } from "./notifier.js";
import {
	DEFAULT_BASE_URL,
	DEFAULT_PROVIDERS,
	type SandboxEvent,
	type SandboxMerchantOptions,
	type SandboxOptions,
} from "./options.js";
import { RequestLog } from "./received.js";
import { GatewaySigner, MESSAGES } from "./replies.js";
import { callbackFields, refundFields, transactionFields } from "./resources.js";
import type { MerchantAccount, RefundRecord, SessionRequest, TransactionRecord } from "./state.js";
import {
	refundStatuses,
	type SandboxRefundStatus,
	type SandboxTransactionStatus,
	transactionStatuses,
} from "./statuses.js";

const DAY_MS = 86_400_000;

function checkedBaseUrl(value: string): string {
	let url: URL | undefined;
	try {
		url = new URL(value);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.search || url.hash) {
		throw new RangeError(
			"baseUrl must be an absolute http(s) URL without query or fragment, such as https://sandbox.merchant-gateway.test.",
		);
	}
	return value.replace(/\/+$/, "");
}

/** What a new transaction is made of, after validation. */
export interface NewTransaction {
	merchant: MerchantAccount;
	channel: "checkout" | "s2s";
	orderRef: string;
	currency: string;
	amount: number;
	expiresAt: Date | undefined;
	request: SessionRequest;
}

/**
 * The simulator's state and its transitions. Every face (MSW, HTTP server,
 * direct calls) goes through this one object; the rules live here and in the
 * `api/` and `pages/` handlers that call it.
 */
export class SandboxCore {
	readonly clock: ControllableClock;
	readonly signer: GatewaySigner;
	readonly gatewayPublicKey: string;
	readonly notifier: Notifier;
	readonly baseUrl: string;
	readonly allowLoopbackHttp: boolean;
	readonly pendingDelayMs: number;
	readonly merchants = new Map<string, MerchantAccount>();
	readonly transactions = new Map<string, TransactionRecord>();
	readonly refunds = new Map<string, RefundRecord>();
	readonly faults = new FaultQueue();
	readonly received = new RequestLog();
	readonly #ids = new IdSource();
	readonly #orderRefs = new Map<string, Set<string>>();
	readonly #onEvent: ((event: SandboxEvent) => void) | undefined;

	constructor(options: SandboxOptions, gatewayKeys: { privateKey: string; publicKey: string }) {
		this.clock = new ControllableClock(options.now);
		this.signer = new GatewaySigner(gatewayKeys.privateKey, options.signedString);
		this.gatewayPublicKey = gatewayKeys.publicKey;
		this.baseUrl = checkedBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
		this.allowLoopbackHttp = options.allowLoopbackHttp ?? true;
		this.pendingDelayMs = options.pendingDelayMs ?? 5_000;
		if (!Number.isFinite(this.pendingDelayMs) || this.pendingDelayMs < 0)
			throw new RangeError("pendingDelayMs must be a number of milliseconds, 0 or more.");
		this.#onEvent = options.onEvent;
		this.notifier = new Notifier(options.ipn ?? {}, this.clock, (attempt) => this.emit({ type: "delivery", attempt }));
		for (const merchant of options.merchants ?? []) this.addMerchant(merchant);
	}

	emit(event: SandboxEvent): void {
		try {
			this.#onEvent?.(event);
		} catch {
			// A broken listener must not break the gateway.
		}
	}

	now(): Date {
		return this.clock.now();
	}

	addMerchant(options: SandboxMerchantOptions): MerchantAccount {
		const id = options.merchantId;
		if (typeof id !== "string" || id.length < 1 || id.length > 50)
			throw new RangeError("merchantId must be 1 to 50 characters.");
		if (this.merchants.has(id)) throw new RangeError(`A merchant ${id} is already registered.`);
		const providers = (options.providers ?? DEFAULT_PROVIDERS).map((p) => ({
			name: p.name,
			kind: p.kind ?? "s2s",
			fullRefundOnly: p.fullRefundOnly ?? false,
		}));
		if (providers.length === 0) throw new RangeError("A merchant needs at least one provider.");
		const feeBySeller = options.feeBySeller ?? 100;
		if (!(feeBySeller >= 0 && feeBySeller <= 100)) throw new RangeError("feeBySeller must be from 0 to 100.");
		const brandName = options.brandName ?? "Sandbox Merchant";
		const account: MerchantAccount = {
			merchantId: id,
			publicKeys: toPublicKeys(options.publicKey),
			signVersion: options.signVersion ?? "2.0",
			refundApproval: options.refundApproval ?? "auto",
			providers,
			autoCascade: options.autoCascade ?? true,
			feeBySeller,
			fees: feeModel(options.fees),
			brandName,
			logoSource: options.logoSource,
			allowedDomains: options.allowedDomains,
			descriptor: (options.descriptor ?? `SANDBOX*${brandName}`).slice(0, 22),
		};
		this.merchants.set(id, account);
		return account;
	}

	orderRefTaken(merchantId: string, orderRef: string): boolean {
		return this.#orderRefs.get(merchantId)?.has(orderRef) === true;
	}

	/** True when the host of `url` is one of the merchant's allowed domains (or a subdomain of one). */
	domainAllowed(merchant: MerchantAccount, url: string): boolean {
		if (!merchant.allowedDomains) return true;
		const host = new URL(url).hostname.toLowerCase();
		return merchant.allowedDomains.some((domain) => {
			const d = domain.toLowerCase();
			return host === d || host.endsWith(`.${d}`);
		});
	}

	createTransaction(input: NewTransaction): TransactionRecord {
		const now = this.now();
		const record: TransactionRecord = {
			merchantId: input.merchant.merchantId,
			transactionId: this.#ids.ulid(now),
			transactionNumber: this.#ids.transactionNumber(now),
			orderRef: input.orderRef,
			currency: input.currency,
			amountMinor: toMinorUnits(input.amount),
			channel: input.channel,
			request: input.request,
			status: "incomplete",
			pendingOn: undefined,
			message: null,
			createdAt: now,
			providerCreatedAt: undefined,
			expiresAt: input.channel === "checkout" ? (input.expiresAt ?? new Date(now.getTime() + DAY_MS)) : undefined,
			fees: undefined,
			card: undefined,
			provider: undefined,
			attempts: [],
			pageToken: randomToken(),
			refundIds: [],
		};
		this.transactions.set(record.transactionId, record);
		const refs = this.#orderRefs.get(record.merchantId) ?? new Set<string>();
		refs.add(record.orderRef);
		this.#orderRefs.set(record.merchantId, refs);
		this.#announce(record);
		if (record.expiresAt) {
			const session = record;
			this.clock.schedule(record.expiresAt.getTime(), () => this.expireIfUnpaid(session));
		}
		return record;
	}

	/** A transaction by id, in either case (the gateway writes ULIDs in lowercase; D12). */
	transaction(transactionId: string): TransactionRecord | undefined {
		return this.transactions.get(transactionId.toLowerCase());
	}

	/** A refund by id, in either case. */
	refund(refundId: string): RefundRecord | undefined {
		return this.refunds.get(refundId.toLowerCase());
	}

	merchantOf(record: TransactionRecord): MerchantAccount {
		const merchant = this.merchants.get(record.merchantId);
		if (!merchant) throw new Error(`merchant ${record.merchantId} vanished`);
		return merchant;
	}

	/** The session can still be paid: incomplete, and not past expiresAt (expiring it now if it is). */
	payable(record: TransactionRecord): boolean {
		this.expireIfUnpaid(record);
		return record.status === "incomplete";
	}

	/** The buyer must complete 3-D Secure (status `pending`, waiting on the 3DS page). */
	awaitingThreeDs(record: TransactionRecord): boolean {
		return record.status === "pending" && record.pendingOn === "three_ds";
	}

	expireIfUnpaid(record: TransactionRecord): void {
		if (record.status === "incomplete" && record.expiresAt && record.expiresAt.getTime() <= this.clock.nowMs()) {
			this.finish(record, "expired", "The checkout session expired before the buyer paid.");
		}
	}

	/** Records what the providers decided and moves the transaction on. */
	applyDecision(record: TransactionRecord, decision: ChargeDecision, card: CardInput): void {
		record.card = storedCard(card);
		record.provider = decision.provider;
		record.attempts.push(...decision.attempts);
		record.providerCreatedAt ??= this.now();
		switch (decision.kind) {
			case "approved":
				this.finish(record, "successful", null);
				return;
			case "declined":
				this.finish(record, "failed", decision.message);
				return;
			case "three_ds":
				record.pendingOn = "three_ds";
				this.#setStatus(record, "pending", "Waiting for the buyer's 3-D Secure authentication.");
				return;
			case "pending": {
				record.pendingOn = "provider";
				this.#setStatus(record, "pending", "pending");
				const eventually = decision.eventually;
				this.clock.schedule(this.clock.nowMs() + this.pendingDelayMs, () => this.settlePending(record, eventually));
				return;
			}
		}
	}

	settlePending(record: TransactionRecord, outcome: "approved" | "declined"): void {
		if (record.status !== "pending" || record.pendingOn !== "provider") return;
		const provider = record.provider?.name ?? "provider";
		if (outcome === "approved") {
			record.attempts.push({ provider, outcome: "approved", message: null });
			this.finish(record, "successful", null);
		} else {
			record.attempts.push({ provider, outcome: "declined", message: "Declined after review." });
			this.finish(record, "failed", "Declined after review.");
		}
	}

	completeThreeDs(record: TransactionRecord, passed: boolean): void {
		if (!this.awaitingThreeDs(record)) return;
		const provider = record.provider?.name ?? "provider";
		const message = passed ? null : "3-D Secure authentication failed.";
		record.attempts.push({ provider, outcome: passed ? "approved" : "declined", message });
		this.finish(record, passed ? "successful" : "failed", message);
	}

	/** A terminal state: fees on success, then the transaction IPN. */
	finish(record: TransactionRecord, status: SandboxTransactionStatus, message: string | null): void {
		if (transactionStatuses[record.status].terminal) return;
		if (status === "successful") {
			const merchant = this.merchantOf(record);
			record.fees = computeFees(record.amountMinor, record.request.feeBySeller, merchant.fees, this.now());
		}
		record.pendingOn = undefined;
		this.#setStatus(record, status, message);
		this.notifyTransaction(record);
	}

	notifyTransaction(record: TransactionRecord): void {
		const merchant = this.merchantOf(record);
		const body = this.signer.flat(transactionFields(record, merchant), merchant.signVersion);
		this.notifier.send({
			kind: "transaction",
			eventId: `transaction:${record.transactionId}:${record.status}`,
			url: record.request.notificationUrl,
			body: JSON.stringify(body),
			startedAt: record.createdAt,
		});
	}

	/** Where the buyer's browser goes now, with the signed callback payload (D5). */
	browserRedirect(record: TransactionRecord): string {
		const target =
			record.status === "canceled"
				? record.request.cancelUrl
				: record.status === "successful" || record.status === "pending"
					? record.request.callbackUrl
					: record.request.errorUrl;
		return sealCallbackUrl(
			target,
			callbackFields(record),
			this.signer.sealOptions(this.merchantOf(record).signVersion),
		);
	}

	/** paidAmount minus every refund not rejected (refund_failed); held ones reserve their amount. */
	refundableMinor(record: TransactionRecord): number {
		const paid = record.fees?.paid ?? 0;
		let reserved = 0;
		for (const id of record.refundIds) {
			const refund = this.refunds.get(id);
			if (refund && refund.status !== "refund_failed") reserved += refund.amountMinor;
		}
		return paid - reserved;
	}

	createRefund(record: TransactionRecord, amountMinor: number, reason: string | undefined): RefundRecord {
		const now = this.now();
		const manual = this.merchantOf(record).refundApproval === "manual";
		const refund: RefundRecord = {
			refundId: this.#ids.ulid(now),
			refundNumber: this.#ids.refundNumber(now),
			transactionId: record.transactionId,
			amountMinor,
			reason: reason === "" ? undefined : reason,
			status: manual ? "refund_under_review" : "refund_successful",
			message: manual ? MESSAGES.refundHeld : null,
			createdAt: now,
		};
		this.refunds.set(refund.refundId, refund);
		record.refundIds.push(refund.refundId);
		this.#announceRefund(refund);
		this.notifyRefund(refund);
		return refund;
	}

	decideRefund(refundId: string, approve: boolean, message?: string): RefundRecord {
		const refund = this.refund(refundId);
		if (!refund) throw new RangeError(`No refund ${refundId} in this sandbox.`);
		if (refund.status !== "refund_under_review") {
			const verb = approve ? "approved" : "rejected";
			throw new RangeError(`Refund ${refundId} is ${refund.status}; only a refund under review can be ${verb}.`);
		}
		refund.status = approve ? "refund_successful" : "refund_failed";
		refund.message = approve ? null : (message ?? "The refund was rejected.");
		this.#announceRefund(refund);
		this.notifyRefund(refund);
		return refund;
	}

	notifyRefund(refund: RefundRecord): void {
		const record = this.transactions.get(refund.transactionId);
		if (!record) return;
		const merchant = this.merchantOf(record);
		const body = this.signer.flat(refundFields(refund, record), merchant.signVersion);
		this.notifier.send({
			kind: "refund",
			eventId: `refund:${refund.refundId}:${refund.status}`,
			url: record.request.notificationUrl,
			body: JSON.stringify(body),
			startedAt: refund.createdAt,
		});
	}

	close(): void {
		this.faults.close();
		this.clock.close();
		this.notifier.close();
	}

	#setStatus(record: TransactionRecord, status: SandboxTransactionStatus, message: string | null): void {
		record.status = status;
		record.message = message;
		this.#announce(record);
	}

	#announce(record: TransactionRecord): void {
		this.emit({
			type: "transaction",
			transactionId: record.transactionId,
			status: record.status,
			statusCode: transactionStatuses[record.status].code,
		});
	}

	#announceRefund(refund: RefundRecord): void {
		const status: SandboxRefundStatus = refund.status;
		this.emit({ type: "refund", refundId: refund.refundId, status, statusCode: refundStatuses[status].code });
	}
}
