import { ConfigurationError } from "../errors/configuration-error.js";
import type { Refund } from "../schemas/resources.js";
import { generateKeyPair } from "../signing/generate.js";
import type { SandboxClock } from "./books/clock.js";
import type { SandboxMerchantOptions } from "./books/merchant-options.js";
import { SandboxCore } from "./core/sandbox-core.js";
import type { SandboxOptions } from "./core/sandbox-options.js";
import { sandboxSettings } from "./core/sandbox-options.js";
import { decideRefund, refundView, type SandboxTransaction, transactionView } from "./core/views.js";
import type { StateDir } from "./persistence/state-dir.js";
import { handleRequest } from "./router/handle-request.js";
import type { SandboxFaults } from "./wire/faults.js";
import type { DeliveryAttempt } from "./wire/notifier.js";
import type { ReceivedLog } from "./wire/received-log.js";
import { type SandboxRequest, type SandboxResponse, toResponse } from "./wire/request-response.js";

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
	// The options are checked before anything touches the disk. The persistence code (node:fs) loads only
	// when a state directory is asked for, so the in-memory sandbox stays free of it.
	const { stateDir } = sandboxSettings(options);
	if (stateDir === undefined)
		return facadeOf(new SandboxCore(options, options.gatewayKeys ?? (await generateKeyPair())));
	const { openStateDir } = await import("./persistence/state-dir.js");
	return sandboxOnStateDir(options, await openStateDir(stateDir, { gatewayKeys: options.gatewayKeys }));
}

/**
 * A sandbox on a state directory its caller opened (the CLI, which reads the directory's keys first); it
 * owns the directory from now on.
 */
export async function sandboxOnStateDir(options: SandboxOptions, state: StateDir): Promise<Sandbox> {
	try {
		return facadeOf(new SandboxCore(options, state.keys.gateway, state));
	} catch (error) {
		await state.close();
		throw error;
	}
}

const cores = new WeakMap<Sandbox, SandboxCore>();

/** @internal The parts behind a sandbox `createSandbox` made: what the HTTP server's control API works on. */
export function coreOf(sandbox: Sandbox): SandboxCore | undefined {
	return cores.get(sandbox);
}

/** The sandbox a core serves, which `coreOf` finds it by. */
function facadeOf(core: SandboxCore): Sandbox {
	// The core's ledger is read on each call: it is made again from the saved state when a write fails.
	const view = (id: string): SandboxTransaction | undefined => {
		const transaction = core.ledger.transaction(id);
		return transaction && transactionView(core, transaction);
	};
	const decide = (id: string, approve: boolean, message?: string): Refund => {
		const decision = decideRefund(core, id, approve, message);
		if (decision.ok) return decision.refund;
		throw new ConfigurationError([{ field: "refundId", message: decision.message }], "refund decision");
	};
	const sandbox: Sandbox = {
		gatewayPublicKey: core.gatewayPublicKey,
		baseUrl: core.settings.baseUrl,
		clock: core.clock,
		faults: core.faults,
		received: core.received,
		addMerchant: (merchant) => void core.merchants.add(merchant),
		fetch: async (request, options) => toResponse(await handleRequest(core, request, options?.origin)),
		handle: (request, options) => handleRequest(core, request, options?.origin),
		transaction: view,
		transactions: () => core.ledger.transactions().map((transaction) => transactionView(core, transaction)),
		refund: (id) => refundView(core, id),
		approveRefund: (id) => decide(id, true),
		rejectRefund: (id, message) => decide(id, false, message),
		deliveries: () => core.notifier.attempts(),
		redeliver: (id) => core.notifier.redeliver(id),
		whenIdle: () => core.notifier.whenIdle(),
		close: () => core.close(),
	};
	cores.set(sandbox, core);
	return sandbox;
}
