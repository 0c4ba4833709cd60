import * as z from "zod/mini";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { RateLimitError } from "../../errors/rate-limit-error.js";
import { callHook } from "../../internal/hooks.js";
import { canonicalId } from "../../internal/ids.js";
import {
	integer,
	MAX_DURATION_MS,
	optionalFunction,
	parseOptions,
	positiveInteger,
	requiredFunction,
	requiredOr,
} from "../../internal/options.js";
import { errorName } from "../../internal/seam.js";
import { lazySchema } from "../../schemas/lazy.js";
import type { Refund, Transaction } from "../../schemas/resources.js";
import type { KnownTransactionStatus } from "../../statuses/catalogue.js";
import type { Logger } from "../../transport/observer.js";
import { claimOptionsShape, createEventRunner, type RunOutcome, realTimer } from "../claims/claimed-event.js";
import type { NotificationContext } from "../claims/run-types.js";
import { storeOption } from "../claims/store.js";
import { refundEventId, transactionEventId } from "../message/event-id.js";
import type {
	ReconcileErrorInfo,
	ReconcileInput,
	ReconcileOutcome,
	ReconcileProgress,
	ReconcileReport,
	Reconciler,
	ReconcilerGateway,
	ReconcilerOptions,
} from "./reconcile-types.js";
import {
	type ReconcileItemWatch,
	type ReconcileWatch,
	reconciliations,
	UNWATCHED_ITEM,
	UNWATCHED_RECONCILIATION,
} from "./reconcile-watch.js";

/**
 * Transaction statuses that are not final: the gateway sends no IPN for them (it
 * notifies when a transaction reaches a terminal state), so the reconciler reports
 * such a transaction as `pending` and hands it to nobody. From the status catalogue:
 * a session not paid yet, a charge or a void still under way or under review.
 */
export const DEFAULT_PENDING_STATUSES: readonly KnownTransactionStatus[] = [
	"incomplete",
	"pending",
	"under_review",
	"documents_uploaded",
	"void_initiated",
	"void_under_review",
];

const MAX_RATE_LIMIT_DELAY_MS = 60_000;

/** The ids of one kind; a string or a bare list is refused (a list could be of either kind). */
function ids(input: ReconcileInput, field: "transactions" | "refunds"): Iterable<string> {
	if (typeof input !== "object" || input === null || Array.isArray(input)) {
		const message = "must be an object { transactions?: ids, refunds?: ids }";
		throw new ConfigurationError([{ field: "input", message }], "reconcile input");
	}
	const value = input[field];
	if (value === undefined) return [];
	if (typeof value === "string" || typeof (value as Iterable<string>)[Symbol.iterator] !== "function") {
		const message = "must be an array (or other iterable) of id strings";
		throw new ConfigurationError([{ field, message }], "reconcile input");
	}
	return value;
}

function isReconcilerGateway(value: unknown): value is ReconcilerGateway {
	const gateway = value as Partial<ReconcilerGateway> | null | undefined;
	return (
		typeof gateway?.transactions?.retrieve === "function" &&
		typeof gateway.refunds?.retrieve === "function" &&
		(gateway.signVersion === "2.0" || gateway.signVersion === "2.1")
	);
}

type Options = ReconcilerOptions;

/** The reconciler's option rules and defaults; the lease, store time limit and timer are the handler's rules. */
const reconcilerOptions = lazySchema(() =>
	z.object({
		gateway: z.custom<ReconcilerGateway>(
			isReconcilerGateway,
			requiredOr("must be a GatewayClient (transactions.retrieve, refunds.retrieve and signVersion)"),
		),
		store: storeOption(),
		onTransaction: requiredFunction<Options["onTransaction"]>(),
		onRefund: requiredFunction<Options["onRefund"]>(),
		...claimOptionsShape(),
		concurrency: positiveInteger(4),
		rateLimitRetries: integer(0, 100, 5),
		rateLimitDelayMs: integer(0, MAX_DURATION_MS, 1000),
		pendingStatuses: z.optional(z.array(z.string(), { error: "must be an array of status strings" })),
		onError: optionalFunction<NonNullable<Options["onError"]>>(),
		logger: z.optional(
			z.custom<Logger>((value) => typeof value === "object" && value !== null, "must be an object with a warn method"),
		),
	}),
);

/**
 * The reconciliation the spec asks for ("use transaction query to reconcile when
 * an IPN was missed"), without double processing: a reconciled event is claimed
 * in the handler's store under the IPN's own event id, so an IPN and a
 * reconciliation of one event, in any order or at the same moment, run your
 * callback once.
 *
 * ```ts
 * const reconciler = createReconciler({ gateway, store, onTransaction, onRefund });
 * const report = await reconciler.reconcile({ transactions: await db.ordersPendingFor(15 * 60_000) });
 * ```
 *
 * @throws ConfigurationError for bad options.
 */
export function createReconciler(options: ReconcilerOptions): Reconciler {
	const config = parseOptions(reconcilerOptions, options, "reconciler options");
	const { gateway, onTransaction, onRefund, onError, concurrency, rateLimitRetries, rateLimitDelayMs } = config;
	const pendingStatuses = new Set<string>(config.pendingStatuses ?? DEFAULT_PENDING_STATUSES);
	// The version the client verifies responses in: what a reconciled event's context says it arrived in.
	const { signVersion } = gateway;
	const runEvent = createEventRunner({
		store: config.store,
		leaseMs: config.leaseMs,
		// The reconciler answers nobody in a deadline: it waits for the callback as long as its lease holds.
		callbackTimeoutMs: config.leaseMs,
		storeTimeoutMs: config.storeTimeoutMs,
		startTimer: config.startTimer ?? realTimer,
	});
	const { logger } = config;
	const warn = (message: string) => callHook(logger?.warn?.bind(logger), message);
	/** A run's watch: the seam's subscriber's, or none. */
	function watchRun(total: number): ReconcileWatch {
		const failed = (error: unknown) =>
			warn(`An instrumentation failed to start; the reconciliation goes on without it: ${errorName(error)}`);
		return reconciliations.start({ total }, failed) ?? UNWATCHED_RECONCILIATION;
	}
	/** An id's watch within its run's (a subscriber that throws costs the id's records, never its result). */
	function watchItem(run: ReconcileWatch, kind: "transaction" | "refund", id: string): ReconcileItemWatch {
		try {
			return run.item(kind, id);
		} catch (error) {
			warn(`An instrumentation failed to start; the reconciliation goes on without it: ${errorName(error)}`);
			return UNWATCHED_ITEM;
		}
	}
	/** Until when every worker waits before its next query (set by a RateLimitError). */
	let pausedUntil = 0;

	function report(error: unknown, info: ReconcileErrorInfo): void {
		callHook<[unknown, ReconcileErrorInfo]>(onError, error, info);
	}

	/** A run that ended after the reconciler stopped waiting: a late success's confirm problem, a late failure. */
	function onLate(outcome: RunOutcome, info: ReconcileErrorInfo): void {
		if (outcome.kind === "processed" && outcome.problem !== undefined) report(outcome.problem, info);
		else if (outcome.kind === "callback_failed" || outcome.kind === "store_unavailable") report(outcome.error, info);
	}

	async function waitForPause(): Promise<void> {
		for (let wait = pausedUntil - Date.now(); wait > 0; wait = pausedUntil - Date.now()) {
			await new Promise((resolve) => setTimeout(resolve, wait));
		}
	}

	function backOff(error: RateLimitError, retry: number): void {
		const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
		const exponential = Math.min(MAX_RATE_LIMIT_DELAY_MS, rateLimitDelayMs * 2 ** retry);
		// Half fixed, half random, so a fleet of reconcilers does not come back in step.
		const delay = retryAfterMs ?? exponential / 2 + Math.random() * (exponential / 2);
		pausedUntil = Math.max(pausedUntil, Date.now() + Math.min(delay, MAX_RATE_LIMIT_DELAY_MS));
	}

	/** The verified resource. Only queries: a create is never sent, so never retried. */
	async function query(kind: "transaction" | "refund", id: string): Promise<Transaction | Refund> {
		for (let retry = 0; ; retry++) {
			await waitForPause();
			try {
				return kind === "transaction" ? await gateway.transactions.retrieve(id) : await gateway.refunds.retrieve(id);
			} catch (error) {
				if (!(error instanceof RateLimitError) || retry >= rateLimitRetries) throw error;
				backOff(error, retry);
			}
		}
	}

	/** Every id's result is made here from its run's outcome, and what went wrong is reported here. */
	function settle(outcome: RunOutcome, result: ReconcileOutcome, info: ReconcileErrorInfo): ReconcileOutcome {
		switch (outcome.kind) {
			case "processed":
				if (outcome.problem !== undefined) report(outcome.problem, info);
				result.result = "processed";
				return result;
			case "duplicate":
				result.result = "already_processed";
				return result;
			case "held":
				result.result = "in_progress";
				return result;
			case "callback_failed":
				if (outcome.problem !== undefined) report(outcome.problem, info);
				return fail(result, outcome.error, info);
			case "store_unavailable":
			case "timed_out":
				return fail(result, outcome.error, info);
		}
	}

	function fail(result: ReconcileOutcome, error: unknown, info: ReconcileErrorInfo): ReconcileOutcome {
		result.result = "failed";
		result.error = error;
		report(error, info);
		return result;
	}

	async function reconcileOne(
		kind: "transaction" | "refund",
		id: string,
		record: ReconcileItemWatch,
	): Promise<ReconcileOutcome> {
		const result: ReconcileOutcome = {
			kind,
			id,
			result: "failed",
			status: undefined,
			eventId: undefined,
			error: undefined,
		};
		let resource: Transaction | Refund;
		try {
			resource = await record.querying(() => query(kind, id));
		} catch (error) {
			return fail(result, error, { kind, id, eventId: undefined });
		}
		result.status = resource.status;
		if (kind === "transaction" && pendingStatuses.has(resource.status)) {
			result.result = "pending";
			return result;
		}
		const eventId =
			kind === "transaction"
				? transactionEventId((resource as Transaction).transactionId, resource.status)
				: refundEventId((resource as Refund).refundId, resource.status);
		result.eventId = eventId;
		record.resolved(resource, eventId);
		const info = { kind, id, eventId };
		const callback = (signal: AbortSignal) => {
			const context: NotificationContext = { eventId, signVersion, signal, reconciled: true };
			return record.inCallback(() =>
				kind === "transaction"
					? onTransaction(resource as Transaction, context)
					: onRefund(resource as Refund, context),
			);
		};
		// A failed run is kept as a failed event, counted with a delivery's, but with no message: a query's
		// answer is no signed IPN a replay could verify again (a delivery's signed message recorded before stays).
		const message = () => "";
		const outcome = await runEvent(eventId, callback, (late) => onLate(late, info), message, record.steps);
		return settle(outcome, result, info);
	}

	/** The ids of one kind, each once: two spellings of one ULID are one id (the first spelling is kept). */
	function distinct(input: ReconcileInput, field: "transactions" | "refunds"): string[] {
		const seen = new Map<string, string>();
		for (const id of ids(input, field)) {
			const key = typeof id === "string" ? canonicalId(id) : id;
			if (!seen.has(key)) seen.set(key, id);
		}
		return [...seen.values()];
	}

	return {
		async reconcile(input, reconcileOptions = {}) {
			const work: ["transaction" | "refund", string][] = [];
			for (const id of distinct(input, "transactions")) work.push(["transaction", id]);
			for (const id of distinct(input, "refunds")) work.push(["refund", id]);
			const { onProgress } = reconcileOptions;
			const counts = { done: 0, processed: 0, alreadyProcessed: 0, inProgress: 0, pending: 0, failed: 0 };
			const summary: ReconcileReport = { total: work.length, ...counts, outcomes: [] };
			const counter = {
				processed: "processed",
				already_processed: "alreadyProcessed",
				in_progress: "inProgress",
				pending: "pending",
				failed: "failed",
			} as const;
			const run = watchRun(work.length);
			let next = 0;
			async function worker(): Promise<void> {
				for (let item = work[next++]; item !== undefined; item = work[next++]) {
					const record = watchItem(run, item[0], item[1]);
					const outcome = await reconcileOne(item[0], item[1], record);
					record.finished(outcome);
					summary.outcomes.push(outcome);
					summary[counter[outcome.result]]++;
					summary.done++;
					if (onProgress) {
						const { outcomes: _, ...progress } = summary;
						// Progress display is best effort.
						callHook<[ReconcileProgress]>(onProgress, progress);
					}
				}
			}
			await Promise.all(Array.from({ length: Math.min(concurrency, work.length) }, worker));
			run.finished(summary);
			return summary;
		},
	};
}
