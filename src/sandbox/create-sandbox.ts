import { ConfigurationError } from "../errors/configuration-error.js";
import type { Refund, Transaction } from "../schemas/resources.js";
import type { SandboxClock } from "./books/clock.js";
import { gatewayTime } from "./books/gateway-formats.js";
import type { SandboxMerchantOptions } from "./books/merchant-options.js";
import type { ProviderAttempt, TransactionRecord } from "./books/records.js";
import { refundResource, transactionResource } from "./books/resources.js";
import { coreOnStateDir, openSandboxCore } from "./core/open-core.js";
import type { SandboxCore } from "./core/sandbox-core.js";
import type { SandboxOptions } from "./core/sandbox-options.js";
import type { DeliveryAttempt } from "./ipn/notifier.js";
import type { StateDir } from "./persistence/state-dir.js";
import { handleRequest } from "./router/handle-request.js";
import type { SandboxFaults } from "./wire/fault-queue.js";
import type { ReceivedLog } from "./wire/received-log.js";
import { type SandboxRequest, type SandboxResponse, toResponse } from "./wire/request-response.js";

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

/**
 * The stateful gateway simulator. Serve it with `startSandboxServer` (HTTP) or `sandboxHandlers` (MSW, from
 * `merchant-gateway/testing/msw`).
 */
export interface Sandbox {
	/** The gateway's public key (PEM): what merchants verify responses, IPNs and callbacks with. */
	readonly gatewayPublicKey: string;
	/** Origin of the MSW face, and of links when no request gives one. */
	readonly baseUrl: string;
	/** The sandbox clock: expiry and pending charges follow it. */
	readonly clock: SandboxClock;
	/**
	 * Fault injection: `sandbox.faults.next("/v2/checkout", { drop: "after-processing" })` and the
	 * next checkout is created but its response never arrives. See {@link SandboxFault}.
	 */
	readonly faults: SandboxFaults;
	/** The requests the sandbox received, oldest first: path, raw body, headers and the fields sent. */
	readonly received: ReceivedLog;
	/** Registers a merchant account. */
	addMerchant(merchant: SandboxMerchantOptions): void;
	/**
	 * Responds to one request, as the gateway would: the /v2 API, the hosted checkout
	 * page and the 3DS page. `origin` is where links in the response point.
	 * @default origin: the request URL's origin
	 */
	fetch(request: Request, options?: { origin?: string | undefined }): Promise<Response>;
	/** The same as `fetch` without Web `Response` objects: what the HTTP server face uses. */
	handle(request: SandboxRequest, options?: { origin?: string | undefined }): Promise<SandboxResponse>;
	/** A transaction's current state, or undefined. The id may be in either case. */
	transaction(transactionId: string): SandboxTransaction | undefined;
	/** Every transaction, oldest first. */
	transactions(): SandboxTransaction[];
	/** A refund's current state, or undefined. */
	refund(refundId: string): Refund | undefined;
	/** Approves a refund held for approval (refund_under_review): it becomes refund_successful and its IPN goes out. */
	approveRefund(refundId: string): Refund;
	/** Rejects a held refund: it becomes refund_failed (amount refundable again) and its IPN goes out. */
	rejectRefund(refundId: string, message?: string): Refund;
	/** Every IPN delivery attempt so far, in order, with its outcome. */
	deliveries(): DeliveryAttempt[];
	/** Sends a delivered notification again, unchanged (an idempotency test). */
	redeliver(deliveryId: string): void;
	/** Resolves when no IPN attempt is running or waiting for a retry. */
	whenIdle(): Promise<void>;
	/**
	 * Stops timers and retries. With `stateDir`, resolves once the last changes are on disk and the
	 * directory is released for the next sandbox.
	 */
	close(): Promise<void>;
}

/**
 * Creates a sandbox. Without `gatewayKeys` it generates a 2048-bit gateway key
 * pair (a few hundred milliseconds); pass a fixed pair to make tests faster.
 * With `stateDir` it resumes the state saved there (see {@link SandboxOptions.stateDir}).
 * @throws ConfigurationError naming each wrong option and its rule, or the state file that cannot be used.
 */
export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	return sandboxFacade(await openSandboxCore(options));
}

/** A sandbox on a state directory its caller opened (the CLI, which reads the directory's keys first). */
export async function sandboxOnStateDir(options: SandboxOptions, state: StateDir): Promise<Sandbox> {
	return sandboxFacade(await coreOnStateDir(options, state));
}

/** The test-facing view of a transaction: the spec's resource plus what only the simulator knows. */
function transactionView(core: SandboxCore, transaction: TransactionRecord): SandboxTransaction {
	const { channel, transactionId, pageToken, expiresAt } = transaction;
	return {
		...transactionResource(transaction, core.merchantOf(transaction)),
		attempts: transaction.attempts.map((attempt) => ({ ...attempt })),
		provider: transaction.provider?.name,
		expiresAt: expiresAt ? gatewayTime(expiresAt) : undefined,
		paymentPath: channel === "checkout" ? `/pay/${transactionId}?token=${pageToken}` : undefined,
	};
}

function sandboxFacade(core: SandboxCore): Sandbox {
	const { ledger } = core;
	const view = (id: string): SandboxTransaction | undefined => {
		const transaction = ledger.transaction(id);
		return transaction && transactionView(core, transaction);
	};
	const refundView = (id: string): Refund | undefined => {
		const refund = ledger.refund(id);
		const transaction = refund && ledger.transaction(refund.transactionId);
		return refund && transaction ? refundResource(refund, transaction) : undefined;
	};
	const decide = (id: string, approve: boolean, message?: string): Refund => {
		const decided = ledger.decideRefund(id, approve, message);
		const transaction = decided.ok && ledger.transaction(decided.value.transactionId);
		if (decided.ok && transaction) return refundResource(decided.value, transaction);
		const verb = approve ? "approved" : "rejected";
		const status = !decided.ok && decided.violation.rule === "not_under_review" ? decided.violation.status : undefined;
		const rule = status ? `is ${status}; only a refund under review can be ${verb}` : "names no refund in this sandbox";
		throw new ConfigurationError([{ field: "refundId", message: `${id} ${rule}` }], "refund decision");
	};
	return {
		gatewayPublicKey: core.gatewayPublicKey,
		baseUrl: core.baseUrl,
		clock: core.clock,
		faults: core.faults,
		received: core.received,
		addMerchant: (merchant) => void core.merchants.add(merchant),
		fetch: async (request, options) => toResponse(await handleRequest(core, request, options?.origin)),
		handle: (request, options) => handleRequest(core, request, options?.origin),
		transaction: view,
		transactions: () => ledger.transactions().map((transaction) => transactionView(core, transaction)),
		refund: refundView,
		approveRefund: (id) => decide(id, true),
		rejectRefund: (id, message) => decide(id, false, message),
		deliveries: () => core.notifier.attempts(),
		redeliver: (id) => core.notifier.redeliver(id),
		whenIdle: () => core.notifier.whenIdle(),
		close: () => core.close(),
	};
}
