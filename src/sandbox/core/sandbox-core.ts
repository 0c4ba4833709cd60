import { refundEventId, transactionEventId } from "../../notifications/message/event-id.js";
import { sealCallbackUrl } from "../../signing/callback-url.js";
import { type BooksClock, ControllableClock } from "../books/clock.js";
import { Ledger } from "../books/ledger.js";
import type { LedgerChange } from "../books/ledger-types.js";
import type { SandboxMerchantOptions } from "../books/merchant-options.js";
import { MerchantRegistry } from "../books/merchants.js";
import type { TransactionRecord } from "../books/records.js";
import { callbackFields, refundResource, transactionResource } from "../books/resources.js";
import { refundStatuses, transactionStatuses } from "../books/statuses.js";
import type { StateDir } from "../persistence/state-dir.js";
import type { SavedState } from "../persistence/state-entries.js";
import { FaultQueue } from "../wire/faults.js";
import { GatewaySigner } from "../wire/gateway-signer.js";
import { type Notification, Notifier } from "../wire/notifier.js";
import { RequestLog } from "../wire/received-log.js";
import { type SandboxEvent, type SandboxOptions, type SandboxSettings, sandboxSettings } from "./sandbox-options.js";

/**
 * The sandbox's parts, wired together: one clock, the merchant registry, the
 * ledger, the IPN notifier, the gateway's signer, fault injection and the
 * request log. Every face (MSW, HTTP server, direct calls) goes through one of
 * these; the ledger's changes become events and IPNs here. With a state
 * directory, it resumes from the saved state and saves every change; when a change cannot be
 * written, the books (ledger, notifier, clock) are made again from what is on disk.
 */
export class SandboxCore {
	readonly clock: ControllableClock;
	readonly signer: GatewaySigner;
	readonly gatewayPublicKey: string;
	/** The options, checked and completed. */
	readonly settings: SandboxSettings;
	readonly merchants = new MerchantRegistry();
	readonly faults = new FaultQueue();
	readonly received = new RequestLog();
	readonly #onEvent: ((event: SandboxEvent) => void) | undefined;
	readonly #state: StateDir | undefined;
	#books: Books;
	/** The account options saved through this core, to save again any whose line was lost. */
	readonly #accounts = new Map<string, SandboxMerchantOptions>();

	/** The books: transactions and refunds, by rule. Replaced (never changed back) when a write fails. */
	get ledger(): Ledger {
		return this.#books.ledger;
	}

	/** IPN deliveries of these books. */
	get notifier(): Notifier {
		return this.#books.notifier;
	}

	/** @param state the opened state directory, which the core then owns (and closes). */
	constructor(options: SandboxOptions, gatewayKeys: { privateKey: string; publicKey: string }, state?: StateDir) {
		const settings = sandboxSettings(options);
		const savedClock = state?.loaded.clock;
		this.clock = savedClock
			? new ControllableClock(savedClock.frozenAt, savedClock.offsetMs)
			: new ControllableClock(settings.frozenAt);
		this.signer = new GatewaySigner(gatewayKeys.privateKey, options.signedString);
		this.gatewayPublicKey = gatewayKeys.publicKey;
		this.#onEvent = options.onEvent;
		this.#state = state;
		this.settings = settings;
		this.#books = this.#openBooks();
		if (state) {
			this.merchants.restore([...state.loaded.merchants.values()]);
			this.merchants.onAdd((merchant) => {
				this.#accounts.set(merchant.merchantId, merchant);
				state.record({ merchant });
			});
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
		this.clock.onMove(() => state.record({ clock: this.clock.reading() }));
		state.record({ clock: this.clock.reading() });
		state.onLost((onDisk) => this.#reload(onDisk));
		this.#restore(state.loaded);
	}

	/** Empty books on the clock, each change saved (with a state directory) and reported. */
	#openBooks(): Books {
		const clock = this.clock.scoped();
		const notifier = new Notifier(this.settings.ipn, clock, {
			attempt: (attempt) => {
				this.#state?.record({ attempt });
				this.emit({ type: "delivery", attempt });
			},
			delivery: (delivery) => this.#state?.record({ delivery }),
		});
		const ledger = new Ledger({
			clock,
			merchants: this.merchants,
			pendingDelayMs: this.settings.pendingDelayMs,
			onChange: (change) => this.#changed(change),
		});
		return { clock, notifier, ledger };
	}

	#restore(saved: SavedState): void {
		this.notifier.restore([...saved.deliveries.values()], [...saved.attempts.values()]);
		this.ledger.restore([...saved.transactions.values()], [...saved.refunds.values()]);
	}

	/**
	 * A write failed: what it carried, and every change made after it, is not on disk. The books are
	 * made again from what is (the clock put back to its saved reading), so nothing answers or lists a
	 * change that a restart would not find. Requests that saw the lost changes answer with an error.
	 */
	#reload(onDisk: SavedState): void {
		this.#books.clock.close();
		this.#books.notifier.close();
		if (onDisk.clock) this.clock.resume(onDisk.clock);
		this.#books = this.#openBooks();
		this.#restore(onDisk);
		for (const [merchantId, merchant] of this.#accounts)
			if (!onDisk.merchants.has(merchantId)) this.#state?.record({ merchant });
		this.emit({ type: "error", message: "A change could not be saved: the sandbox went back to its saved state." });
	}

	/** Where the saved state stands: take it before reading the books, and hand it to `saved`. */
	mark(): number {
		return this.#state?.mark() ?? 0;
	}

	/**
	 * Resolves once every change so far is saved (at once without a state directory); rejects when a
	 * change made after `mark` could not be saved (what was read since then may no longer hold).
	 */
	saved(mark?: number): Promise<void> {
		return this.#state?.written(mark) ?? Promise.resolve();
	}

	emit(event: SandboxEvent): void {
		try {
			this.#onEvent?.(event);
		} catch {
			// A broken listener must not break the gateway.
		}
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
		const signVersion = this.merchants.of(record).signVersion;
		return sealCallbackUrl(target, callbackFields(record), this.signer.sealOptions(signVersion));
	}

	/** Stops timers and retries; with a state directory, writes what is left and releases it. */
	async close(): Promise<void> {
		this.faults.close();
		this.#books.clock.close();
		this.clock.close();
		this.notifier.close();
		await this.#state?.close();
	}

	/** A ledger change: saved, its event, and the IPN of a final transaction status or of a refund (once saved). */
	#changed(change: LedgerChange): void {
		const { transaction } = change;
		this.#state?.record(change.kind === "transaction" ? { transaction } : { refund: change.refund });
		const merchant = this.merchants.of(transaction);
		let notification: Omit<Notification, "url" | "body"> & { fields: Record<string, unknown> };
		if (change.kind === "transaction") {
			const { transactionId, status } = transaction;
			this.emit({ type: "transaction", transactionId, status, statusCode: transactionStatuses[status].code });
			if (!change.final) return;
			const eventId = transactionEventId(transactionId, status);
			const fields = transactionResource(transaction, merchant);
			notification = { kind: "transaction", eventId, fields, startedAt: transaction.createdAt };
		} else {
			const { refundId, status } = change.refund;
			this.emit({ type: "refund", refundId, status, statusCode: refundStatuses[status].code });
			const eventId = refundEventId(refundId, status);
			const fields = refundResource(change.refund, transaction);
			notification = { kind: "refund", eventId, fields, startedAt: change.refund.createdAt };
		}
		const { fields, ...rest } = notification;
		const body = JSON.stringify(this.signer.flat(fields, merchant.signVersion));
		this.notifier.send({ ...rest, url: transaction.request.notificationUrl, body }, this.#state?.written());
	}
}

/** One set of books: the ledger and its notifier, scheduling on one view of the clock. */
interface Books {
	clock: BooksClock;
	ledger: Ledger;
	notifier: Notifier;
}
