import { refundEventId, transactionEventId } from "../../notifications/message/event-id.js";
import { sealCallbackUrl } from "../../signing/callback-url.js";
import { ControllableClock } from "../books/clock.js";
import { Ledger } from "../books/ledger.js";
import type { LedgerChange } from "../books/ledger-types.js";
import { type MerchantAccount, MerchantRegistry } from "../books/merchants.js";
import type { TransactionRecord } from "../books/records.js";
import { callbackFields, refundResource, transactionResource } from "../books/resources.js";
import { refundStatuses, transactionStatuses } from "../books/statuses.js";
import { Notifier } from "../ipn/notifier.js";
import type { StateDir } from "../persistence/state-dir.js";
import { FaultQueue } from "../wire/fault-queue.js";
import { GatewaySigner } from "../wire/gateway-signer.js";
import { RequestLog } from "../wire/received-log.js";
import type { SandboxEvent, SandboxOptions } from "./sandbox-options.js";
import { sandboxSettings } from "./sandbox-settings.js";

/**
 * The sandbox's parts, wired together: one clock, the merchant registry, the
 * ledger, the IPN notifier, the gateway's signer, fault injection and the
 * request log. Every face (MSW, HTTP server, direct calls) goes through one of
 * these; the ledger's changes become events and IPNs here. With a state
 * directory, it resumes from the saved state and saves every change.
 */
export class SandboxCore {
	readonly clock: ControllableClock;
	readonly signer: GatewaySigner;
	readonly gatewayPublicKey: string;
	readonly baseUrl: string;
	readonly allowLoopbackHttp: boolean;
	readonly merchants = new MerchantRegistry();
	readonly ledger: Ledger;
	readonly notifier: Notifier;
	readonly faults = new FaultQueue();
	readonly received = new RequestLog();
	readonly #onEvent: ((event: SandboxEvent) => void) | undefined;
	readonly #state: StateDir | undefined;

	/** @param state the opened state directory, which the core then owns (and closes). */
	constructor(options: SandboxOptions, gatewayKeys: { privateKey: string; publicKey: string }, state?: StateDir) {
		const settings = sandboxSettings(options);
		const savedClock = state?.loaded.clock;
		this.clock = savedClock
			? new ControllableClock(savedClock.frozenAt, savedClock.offsetMs)
			: new ControllableClock(settings.frozenAt);
		this.signer = new GatewaySigner(gatewayKeys.privateKey, options.signedString);
		this.gatewayPublicKey = gatewayKeys.publicKey;
		this.baseUrl = settings.baseUrl;
		this.allowLoopbackHttp = settings.allowLoopbackHttp;
		this.#onEvent = options.onEvent;
		this.#state = state;
		this.notifier = new Notifier(settings.ipn, this.clock, (attempt) => {
			this.#state?.record({ attempt });
			this.emit({ type: "delivery", attempt });
		});
		this.ledger = new Ledger({
			clock: this.clock,
			merchants: this.merchants,
			pendingDelayMs: settings.pendingDelayMs,
			onChange: (change) => this.#changed(change),
		});
		if (state) {
			this.merchants.restore([...state.loaded.merchants.values()]);
			this.merchants.onAdd((merchant) => state.record({ merchant }));
		}
		for (const merchant of options.merchants ?? []) this.merchants.add(merchant);
		if (state) this.#resume(state);
	}

	/**
	 * Takes back the saved deliveries and books once the accounts are in place (every record names
	 * one), and saves every change from now on. Expiries and settlements that fell due while the
	 * sandbox was stopped run now, and are saved and notified like any other change.
	 */
	#resume(state: StateDir): void {
		const { loaded } = state;
		this.clock.onMove(() => state.record({ clock: this.clock.reading() }));
		state.record({ clock: this.clock.reading() });
		this.notifier.onDelivery((delivery) => state.record({ delivery }));
		this.notifier.restore([...loaded.deliveries.values()], [...loaded.attempts.values()]);
		this.ledger.restore([...loaded.transactions.values()], [...loaded.refunds.values()]);
	}

	/** Resolves once every change so far is saved (at once without a state directory). */
	saved(): Promise<void> {
		return this.#state?.written() ?? Promise.resolve();
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

	merchantOf(record: TransactionRecord): MerchantAccount {
		const merchant = this.merchants.get(record.merchantId);
		if (!merchant) throw new Error(`merchant ${record.merchantId} vanished`);
		return merchant;
	}

	/** Where the buyer's browser goes now, with the signed callback payload (D5). */
	browserRedirect(record: TransactionRecord): string {
		const { request } = record;
		const target =
			record.status === "canceled"
				? request.cancelUrl
				: record.status === "successful" || record.status === "pending"
					? request.callbackUrl
					: request.errorUrl;
		const signVersion = this.merchantOf(record).signVersion;
		return sealCallbackUrl(target, callbackFields(record), this.signer.sealOptions(signVersion));
	}

	/** Stops timers and retries; with a state directory, writes what is left and releases it. */
	async close(): Promise<void> {
		this.faults.close();
		this.clock.close();
		this.notifier.close();
		await this.#state?.close();
	}

	/** A ledger change: saved, its event, and the IPN of a final transaction status or of a refund (once saved). */
	#changed(change: LedgerChange): void {
		const { transaction } = change;
		this.#state?.record(change.kind === "transaction" ? { transaction } : { refund: change.refund });
		const merchant = this.merchantOf(transaction);
		if (change.kind === "transaction") {
			const { transactionId, status } = transaction;
			this.emit({ type: "transaction", transactionId, status, statusCode: transactionStatuses[status].code });
			if (!change.final) return;
			this.notifier.send(
				{
					kind: "transaction",
					eventId: transactionEventId(transactionId, status),
					url: transaction.request.notificationUrl,
					body: JSON.stringify(this.signer.flat(transactionResource(transaction, merchant), merchant.signVersion)),
					startedAt: transaction.createdAt,
				},
				this.#state?.written(),
			);
			return;
		}
		const { refundId, status } = change.refund;
		this.emit({ type: "refund", refundId, status, statusCode: refundStatuses[status].code });
		this.notifier.send(
			{
				kind: "refund",
				eventId: refundEventId(refundId, status),
				url: transaction.request.notificationUrl,
				body: JSON.stringify(this.signer.flat(refundResource(change.refund, transaction), merchant.signVersion)),
				startedAt: change.refund.createdAt,
			},
			this.#state?.written(),
		);
	}
}
