import { ConfigurationError } from "../../errors/configuration-error.js";
import { RateLimitError } from "../../errors/rate-limit-error.js";
import { callHook } from "../../internal/hooks.js";
import { canonicalId } from "../../internal/ids.js";
import { parseOptions } from "../../internal/options.js";
import { errorName } from "../../internal/seam.js";
import type { Refund, Transaction } from "../../schemas/resources.js";
import type { KnownTransactionStatus } from "../../statuses/catalogue.js";
import { createEventRunner, type RunOutcome, realTimer, runEvent } from "../claims/claimed-event.js";
import type { NotificationContext } from "../claims/run-types.js";
import { refundEventId, transactionEventId } from "../message/event-id.js";
import {
	type ReconcileErrorInfo,
	type ReconcileInput,
	type ReconcileOutcome,
	type ReconcileProgress,
	type ReconcileReport,
	type ReconcileRunOptions,
	type Reconciler,
	type ReconcilerOptions,
	reconcilerOptionsSchema,
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

/** What every reconciliation of one reconciler shares: its checked options, its runner and the pause. */
type ReconcilerContext = ReturnType<typeof reconcilerContext>;

/** What a transaction or refund id is reconciled as. */
type ItemKind = "transaction" | "refund";

/** One reconciliation under way: the ids left to take, its watch, and the report its workers fill in. */
interface Reconciliation {
	readonly work: readonly (readonly [ItemKind, string])[];
	/** The index of the next id a worker takes. */
	next: number;
	readonly watch: ReconcileWatch;
	readonly summary: ReconcileReport;
	readonly onProgress: ReconcileRunOptions["onProgress"];
}

/** The result of a run that did not fail. */
const RESULT_OF = { processed: "processed", duplicate: "already_processed", held: "in_progress" } as const;

/** Which count of the report a result adds to. */
const COUNTER = {
	processed: "processed",
	already_processed: "alreadyProcessed",
	in_progress: "inProgress",
	pending: "pending",
	failed: "failed",
} as const;

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
	const context = reconcilerContext(options);
	return { reconcile: (input, runOptions = {}) => reconcile(context, input, runOptions) };
}

function reconcilerContext(options: ReconcilerOptions) {
	const config = parseOptions(reconcilerOptionsSchema, options, "reconciler options");
	const { logger } = config;
	return {
		...config,
		pendingStatuses: new Set<string>(config.pendingStatuses ?? DEFAULT_PENDING_STATUSES) as ReadonlySet<string>,
		runner: createEventRunner({
			store: config.store,
			leaseMs: config.leaseMs,
			// The reconciler answers nobody in a deadline: it waits for the callback as long as its lease holds.
			callbackTimeoutMs: config.leaseMs,
			storeTimeoutMs: config.storeTimeoutMs,
			startTimer: config.startTimer ?? realTimer,
		}),
		warn: (message: string) => callHook(logger?.warn?.bind(logger), message),
		/** Until when every worker waits before its next query (set by a RateLimitError). */
		pausedUntil: 0,
	};
}

/** Reconciles every id of `input`, `concurrency` at a time, and reports each id's result. */
async function reconcile(
	context: ReconcilerContext,
	input: ReconcileInput,
	runOptions: ReconcileRunOptions,
): Promise<ReconcileReport> {
	const work: (readonly [ItemKind, string])[] = [];
	for (const id of distinct(input, "transactions")) work.push(["transaction", id]);
	for (const id of distinct(input, "refunds")) work.push(["refund", id]);
	const counts = { done: 0, processed: 0, alreadyProcessed: 0, inProgress: 0, pending: 0, failed: 0 };
	const summary: ReconcileReport = { total: work.length, ...counts, outcomes: [] };
	const reconciliation: Reconciliation = {
		work,
		next: 0,
		watch: watchRun(context, work.length),
		summary,
		onProgress: runOptions.onProgress,
	};
	const workers = Math.min(context.concurrency, work.length);
	await Promise.all(Array.from({ length: workers }, () => worker(context, reconciliation)));
	reconciliation.watch.finished(summary);
	return summary;
}

/** One of a reconciliation's workers: takes the next id until none is left, and counts its result. */
async function worker(context: ReconcilerContext, reconciliation: Reconciliation): Promise<void> {
	const { work, watch, summary, onProgress } = reconciliation;
	for (let item = work[reconciliation.next++]; item !== undefined; item = work[reconciliation.next++]) {
		const [kind, id] = item;
		const record = watchItem(context, watch, kind, id);
		const outcome = await reconcileOne(context, kind, id, record);
		record.finished(outcome);
		summary.outcomes.push(outcome);
		summary[COUNTER[outcome.result]]++;
		summary.done++;
		if (onProgress) {
			const { outcomes: _, ...progress } = summary;
			// Progress display is best effort.
			callHook<[ReconcileProgress]>(onProgress, progress);
		}
	}
}

/** One id: queried, handed to the callback once claimed (unless pending), and its result made. */
async function reconcileOne(
	context: ReconcilerContext,
	kind: ItemKind,
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
		resource = await record.querying(() => query(context, kind, id));
	} catch (error) {
		return fail(context, result, error, { kind, id, eventId: undefined });
	}
	result.status = resource.status;
	if (kind === "transaction" && context.pendingStatuses.has(resource.status)) {
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
	const callback = callbackFor(context, kind, resource, eventId, record);
	// A failed run is kept as a failed event, counted with a delivery's, but with no message: a query's
	// answer is no signed IPN a replay could verify again (a delivery's signed message recorded before stays).
	const message = () => "";
	const late = (outcome: RunOutcome) => onLate(context, outcome, info);
	const outcome = await runEvent(context.runner, eventId, callback, late, message, record.steps);
	return settle(context, outcome, result, info);
}

/** The callback a reconciled id's run calls, inside its watch's `inCallback`. */
function callbackFor(
	context: ReconcilerContext,
	kind: ItemKind,
	resource: Transaction | Refund,
	eventId: string,
	record: ReconcileItemWatch,
) {
	const { onTransaction, onRefund, gateway } = context;
	const { signVersion } = gateway;
	return (signal: AbortSignal) => {
		const callbackContext: NotificationContext = { eventId, signVersion, signal, reconciled: true };
		return record.inCallback(() =>
			kind === "transaction"
				? onTransaction(resource as Transaction, callbackContext)
				: onRefund(resource as Refund, callbackContext),
		);
	};
}

/** The verified resource. Only queries: a create is never sent, so never retried. */
async function query(context: ReconcilerContext, kind: ItemKind, id: string): Promise<Transaction | Refund> {
	const { gateway, rateLimitRetries } = context;
	for (let retry = 0; ; retry++) {
		await waitForPause(context);
		try {
			return kind === "transaction" ? await gateway.transactions.retrieve(id) : await gateway.refunds.retrieve(id);
		} catch (error) {
			if (!(error instanceof RateLimitError) || retry >= rateLimitRetries) throw error;
			backOff(context, error, retry);
		}
	}
}

async function waitForPause(context: ReconcilerContext): Promise<void> {
	for (let wait = context.pausedUntil - Date.now(); wait > 0; wait = context.pausedUntil - Date.now()) {
		await new Promise((resolve) => setTimeout(resolve, wait));
	}
}

function backOff(context: ReconcilerContext, error: RateLimitError, retry: number): void {
	const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
	const exponential = Math.min(MAX_RATE_LIMIT_DELAY_MS, context.rateLimitDelayMs * 2 ** retry);
	// Half fixed, half random, so a fleet of reconcilers does not come back in step.
	const delay = retryAfterMs ?? exponential / 2 + Math.random() * (exponential / 2);
	context.pausedUntil = Math.max(context.pausedUntil, Date.now() + Math.min(delay, MAX_RATE_LIMIT_DELAY_MS));
}

/** Every id's result is made here from its run's outcome, and what went wrong is reported here. */
function settle(
	context: ReconcilerContext,
	outcome: RunOutcome,
	result: ReconcileOutcome,
	info: ReconcileErrorInfo,
): ReconcileOutcome {
	if ((outcome.kind === "processed" || outcome.kind === "callback_failed") && outcome.problem !== undefined)
		report(context, outcome.problem, info);
	if ("error" in outcome) return fail(context, result, outcome.error, info);
	result.result = RESULT_OF[outcome.kind];
	return result;
}

function fail(
	context: ReconcilerContext,
	result: ReconcileOutcome,
	error: unknown,
	info: ReconcileErrorInfo,
): ReconcileOutcome {
	result.result = "failed";
	result.error = error;
	report(context, error, info);
	return result;
}

/** A run that ended after the reconciler stopped waiting: a late success's confirm problem, a late failure. */
function onLate(context: ReconcilerContext, outcome: RunOutcome, info: ReconcileErrorInfo): void {
	if (outcome.kind === "processed" && outcome.problem !== undefined) report(context, outcome.problem, info);
	else if (outcome.kind === "callback_failed" || outcome.kind === "store_unavailable") {
		report(context, outcome.error, info);
	}
}

function report(context: ReconcilerContext, error: unknown, info: ReconcileErrorInfo): void {
	callHook<[unknown, ReconcileErrorInfo]>(context.onError, error, info);
}

/** A run's watch: the seam's subscriber's, or none. */
function watchRun(context: ReconcilerContext, total: number): ReconcileWatch {
	const failed = (error: unknown) =>
		context.warn(`An instrumentation failed to start; the reconciliation goes on without it: ${errorName(error)}`);
	return reconciliations.start({ total }, failed) ?? UNWATCHED_RECONCILIATION;
}

/** An id's watch within its run's (a subscriber that throws costs the id's records, never its result). */
function watchItem(context: ReconcilerContext, run: ReconcileWatch, kind: ItemKind, id: string): ReconcileItemWatch {
	try {
		return run.item(kind, id);
	} catch (error) {
		context.warn(`An instrumentation failed to start; the reconciliation goes on without it: ${errorName(error)}`);
		return UNWATCHED_ITEM;
	}
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
