import * as z from "zod/mini";
import {
	duration,
	integer,
	MAX_DURATION_MS,
	optionalFunction,
	positiveInteger,
	requiredFunction,
	requiredOr,
} from "../../internal/options.js";
import { lazySchema } from "../../schemas/lazy.js";
import type { Refund, Transaction } from "../../schemas/resources.js";
import type { SignVersion } from "../../signing/seal.js";
import type { Logger } from "../../transport/observer.js";
import { DEFAULT_LEASE_MS, DEFAULT_STORE_TIMEOUT_MS } from "../claims/claimed-event.js";
import type { NotificationContext } from "../claims/run-types.js";
import { storeOption } from "../claims/store.js";

// The reconciler's public shapes: its options (and their rules), what a run is given and what it reports.

/** Where a reconciliation failure happened. */
export interface ReconcileErrorInfo {
	/** Whether the id is a transaction's or a refund's. */
	kind: "transaction" | "refund";
	/** The transaction or refund id as given. */
	id: string;
	/** The event, once the query told its status. */
	eventId: string | undefined;
}

/**
 * What the reconciler uses of a gateway client: the two queries and the version their responses are
 * verified in. A `GatewayClient` is one.
 */
export interface ReconcilerGateway {
	/** The version the client verifies responses in: what a reconciled event's context says it arrived in. */
	readonly signVersion: SignVersion;
	/** The transaction query. */
	readonly transactions: {
		/** The transaction, verified. */
		retrieve(transactionId: string): Promise<Transaction>;
	};
	/** The refund query. */
	readonly refunds: {
		/** The refund, verified. */
		retrieve(refundId: string): Promise<Refund>;
	};
}

function isReconcilerGateway(value: unknown): value is ReconcilerGateway {
	const gateway = value as Partial<ReconcilerGateway> | null | undefined;
	return (
		typeof gateway?.transactions?.retrieve === "function" &&
		typeof gateway.refunds?.retrieve === "function" &&
		(gateway.signVersion === "2.0" || gateway.signVersion === "2.1")
	);
}

/** Every option of `createReconciler`, with its rule and its documentation. */
function reconcilerOptionsShape() {
	return {
		/** The client that queries the gateway (a `GatewayClient`): every response is verified before anything is handed on. */
		gateway: z.custom<ReconcilerGateway>(
			isReconcilerGateway,
			requiredOr("must be a GatewayClient (transactions.retrieve, refunds.retrieve and signVersion)"),
		),
		/** The store your IPN handler uses: a reconciled event and its IPN are claimed under the same event id. */
		store: storeOption(),
		/**
		 * The handler's `onTransaction`, called with `context.reconciled === true`; same contract (resolve once
		 * stored, throw to retry later). `context.signal` aborts when the claim's lease ends before it settles.
		 */
		onTransaction: requiredFunction<(transaction: Transaction, context: NotificationContext) => unknown>(),
		/** The handler's `onRefund`, called with `context.reconciled === true`. */
		onRefund: requiredFunction<(refund: Refund, context: NotificationContext) => unknown>(),
		/**
		 * How long a claim protects an event being processed, in ms (at most 2147483647, as every duration here);
		 * use the handler's value. The reconciler waits for a callback until it ends. @default 60000
		 */
		leaseMs: duration(DEFAULT_LEASE_MS),
		/**
		 * How long each store call (claim, confirm, release) may take, in ms; an id whose claim has no answer by
		 * then fails (a claim granted later is given back). @default 2000
		 */
		storeTimeoutMs: duration(DEFAULT_STORE_TIMEOUT_MS),
		/**
		 * Starts the timers behind `leaseMs` and `storeTimeoutMs`; returns the function that cancels one. Tests
		 * pass one driven by their own clock. @default a real timer (setTimeout, unref'ed where the runtime can)
		 */
		startTimer: optionalFunction<(onExpiry: () => void, delayMs: number) => () => void>(),
		/** Queries (and callbacks) running at once. @default 4 */
		concurrency: positiveInteger(4),
		/** Times one id's query is tried again after `RateLimitError` (on top of the client's own retries). @default 5 */
		rateLimitRetries: integer(0, 100, 5),
		/**
		 * First wait after `RateLimitError` when the gateway gave no Retry-After, in ms; doubles per retry, up to
		 * 60 s. Every worker waits. @default 1000
		 */
		rateLimitDelayMs: integer(0, MAX_DURATION_MS, 1000),
		/** Transaction statuses that are not final (not handed on: `pending`). @default DEFAULT_PENDING_STATUSES */
		pendingStatuses: z.optional(z.array(z.string(), { error: "must be an array of status strings" })),
		/**
		 * Told about every failure (also in the report) and about callbacks that outlived their lease. Not
		 * awaited; what it throws or rejects with is ignored. @default undefined
		 */
		onError: optionalFunction<(error: unknown, info: ReconcileErrorInfo) => void>(),
		/**
		 * A console-like logger for warnings (telemetry that cannot record). The gateway client's drift warnings
		 * go to the client's own logger. @default none
		 */
		logger: z.optional(
			z.custom<Logger>((value) => typeof value === "object" && value !== null, "must be an object with a warn method"),
		),
	};
}
type ReconcilerOptionsObject = z.ZodMiniObject<ReturnType<typeof reconcilerOptionsShape>>;

/** The reconciler's option rules and defaults. */
export const reconcilerOptionsSchema = lazySchema((): ReconcilerOptionsObject => z.object(reconcilerOptionsShape()));

/**
 * What `createReconciler` needs: the client, the handler's store and callbacks, and limits with defaults.
 * @interface
 */
export type ReconcilerOptions = z.input<ReconcilerOptionsObject>;

/** What to reconcile: transaction ids, refund ids, or both. Duplicates are queried once. */
export interface ReconcileInput {
	/** Transaction ids to query. @default none */
	transactions?: Iterable<string> | undefined;
	/** Refund ids to query. @default none */
	refunds?: Iterable<string> | undefined;
}

/** Counts so far. `done` = processed + alreadyProcessed + inProgress + pending + failed. */
export interface ReconcileProgress {
	/** Ids to reconcile. */
	total: number;
	/** Ids finished, whatever their result. */
	done: number;
	/** Handed to your callback now, which resolved. */
	processed: number;
	/** Already processed (by an IPN or an earlier reconciliation): not handed on again. */
	alreadyProcessed: number;
	/** Claimed by another worker right now (an IPN being processed): that worker finishes it. */
	inProgress: number;
	/** In a status that is not final yet: nothing to hand on; reconcile it again later. */
	pending: number;
	/** Query, store or callback failed: see `outcomes`; reconcile it again later. */
	failed: number;
}

/** One id's result: the id, as a failure's info gives it, and what happened to it. */
export interface ReconcileOutcome extends ReconcileErrorInfo {
	/** What happened to it; the counts of `ReconcileProgress` say what each result means. */
	result: "processed" | "already_processed" | "in_progress" | "pending" | "failed";
	/** The verified status, when the query succeeded. */
	status: string | undefined;
	/** Why it failed. */
	error: unknown;
}

/** What a `reconcile` run did: the final counts and each id's outcome. */
export interface ReconcileReport extends ReconcileProgress {
	/** One entry per id, in the order they finished. */
	outcomes: ReconcileOutcome[];
}

/** Options of one `reconcile` run. */
export interface ReconcileRunOptions {
	/** Called after each id, with the counts so far; not awaited, and what it throws or rejects with is ignored. @default undefined */
	onProgress?: ((progress: ReconcileProgress) => void) | undefined;
}

/** Made by `createReconciler`: brings the events whose IPN never arrived to your callbacks. */
export interface Reconciler {
	/**
	 * Queries each id (verified), and hands every result in a final status that was
	 * not processed yet to your callback, claimed through the store exactly as its
	 * IPN would be. Never creates anything. Resolves when every id is done; one id's
	 * failure is in the report, not thrown.
	 */
	reconcile(input: ReconcileInput, options?: ReconcileRunOptions): Promise<ReconcileReport>;
}
