import type { GatewayClient } from "../client.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { RateLimitError } from "../errors/rate-limit-error.js";
import type { FieldIssue } from "../errors/request-validation-error.js";
import type { Refund, Transaction } from "../schemas/resources.js";
import type { SignVersion } from "../signing/seal.js";
import type { KnownTransactionStatus } from "../statuses/catalogue.js";
import { confirmClaim, newClaimToken, releaseClaim } from "./claims.js";
import { refundEventId, transactionEventId } from "./event-id.js";
import type { NotificationContext } from "./handler-types.js";
import type {
	ReconcileErrorInfo,
	ReconcileInput,
	ReconcileOutcome,
	ReconcileReport,
	Reconciler,
	ReconcilerOptions,
} from "./reconcile-types.js";

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

function checkOptions(options: ReconcilerOptions): FieldIssue[] {
	const issues: FieldIssue[] = [];
	const gateway = options?.gateway as Partial<GatewayClient> | undefined;
	if (typeof gateway?.transactions?.retrieve !== "function" || typeof gateway.refunds?.retrieve !== "function") {
		issues.push({ field: "gateway", message: "must be a GatewayClient" });
	}
	const store = options?.store;
	if (
		typeof store?.claim !== "function" ||
		typeof store.confirm !== "function" ||
		typeof store.release !== "function"
	) {
		issues.push({ field: "store", message: "must have claim, confirm and release methods (the IPN handler's store)" });
	}
	for (const field of ["onTransaction", "onRefund"] as const) {
		if (typeof options?.[field] !== "function") issues.push({ field, message: "must be a function" });
	}
	const integers: [keyof ReconcilerOptions, number][] = [
		["leaseMs", 1],
		["concurrency", 1],
		["rateLimitRetries", 0],
		["rateLimitDelayMs", 0],
	];
	for (const [field, min] of integers) {
		const value = options?.[field];
		if (value !== undefined && (typeof value !== "number" || !Number.isSafeInteger(value) || value < min)) {
			issues.push({ field, message: min === 1 ? "must be a positive integer" : "must be an integer, 0 or more" });
		}
	}
	const pending = options?.pendingStatuses;
	if (pending !== undefined && (!Array.isArray(pending) || pending.some((status) => typeof status !== "string"))) {
		issues.push({ field: "pendingStatuses", message: "must be an array of status strings" });
	}
	return issues;
}

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
	const issues = checkOptions(options);
	if (issues.length > 0) throw new ConfigurationError(issues, "reconciler options");
	const { gateway, store, onTransaction, onRefund, onError } = options;
	const leaseMs = options.leaseMs ?? 60_000;
	const concurrency = options.concurrency ?? 4;
	const rateLimitRetries = options.rateLimitRetries ?? 5;
	const rateLimitDelayMs = options.rateLimitDelayMs ?? 1000;
	const pendingStatuses = new Set<string>(options.pendingStatuses ?? DEFAULT_PENDING_STATUSES);
	// The version the client verifies responses in: what a reconciled event's context says it arrived in.
	const signVersion = gateway.toJSON().signVersion as SignVersion;
	/** Until when every worker waits before its next query (set by a RateLimitError). */
	let pausedUntil = 0;

	function report(error: unknown, info: ReconcileErrorInfo): void {
		if (!onError) return;
		try {
			onError(error, info);
		} catch {
			// A failing logger must not change the outcome.
		}
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

	async function reconcileOne(kind: "transaction" | "refund", id: string): Promise<ReconcileOutcome> {
		const unknown = { status: undefined, eventId: undefined, error: undefined };
		const outcome: ReconcileOutcome = { kind, id, result: "failed", ...unknown };
		const fail = (error: unknown): ReconcileOutcome => {
			outcome.result = "failed";
			outcome.error = error;
			report(error, { kind, id, eventId: outcome.eventId });
			return outcome;
		};
		let resource: Transaction | Refund;
		try {
			resource = await query(kind, id);
		} catch (error) {
			return fail(error);
		}
		outcome.status = resource.status;
		if (kind === "transaction" && pendingStatuses.has(resource.status)) {
			outcome.result = "pending";
			return outcome;
		}
		const eventId =
			kind === "transaction"
				? transactionEventId((resource as Transaction).transactionId, resource.status)
				: refundEventId((resource as Refund).refundId, resource.status);
		outcome.eventId = eventId;
		const token = newClaimToken();
		let claim: string;
		try {
			claim = await store.claim(eventId, leaseMs, token);
		} catch (error) {
			return fail(error);
		}
		if (claim === "processed" || claim === "in_progress") {
			outcome.result = claim === "processed" ? "already_processed" : "in_progress";
			return outcome;
		}
		const settled = await runCallback(resource, { kind, id, eventId }, token);
		if (settled.timedOut) return fail(settled.error);
		if (settled.failed) {
			const releaseProblem = await releaseClaim(store, eventId, token);
			if (releaseProblem !== undefined) report(releaseProblem, { kind, id, eventId });
			return fail(settled.error);
		}
		const confirmProblem = await confirmClaim(store, eventId, token, leaseMs);
		if (confirmProblem !== undefined) report(confirmProblem, { kind, id, eventId });
		outcome.result = "processed";
		return outcome;
	}

	/**
	 * Runs the callback until it settles or its lease ends, whichever comes first. At the lease's
	 * end its `signal` aborts and the reconciler stops waiting (another worker may claim the event
	 * now); a run that succeeds later still confirms, one that fails later lets the claim lapse.
	 */
	function runCallback(
		resource: Transaction | Refund,
		info: ReconcileErrorInfo & { eventId: string },
		token: string,
	): Promise<{ failed: boolean; timedOut: boolean; error: unknown }> {
		const { kind, eventId } = info;
		const controller = new AbortController();
		const context: NotificationContext = { eventId, signVersion, signal: controller.signal, reconciled: true };
		return new Promise((resolve) => {
			let waiting = true;
			const timer = setTimeout(() => {
				waiting = false;
				const message = `The callback did not settle within its ${leaseMs} ms lease; the event may be processed again.`;
				const reason = new DOMException(message, "TimeoutError");
				controller.abort(reason);
				resolve({ failed: true, timedOut: true, error: reason });
			}, leaseMs);
			(timer as { unref?: () => void }).unref?.();
			const reportProblem = (problem: unknown) => {
				if (problem !== undefined) report(problem, info);
			};
			const done = (error: unknown, failed: boolean) => {
				clearTimeout(timer);
				if (waiting) resolve({ failed, timedOut: false, error });
				else if (failed) report(error, info);
				// Late, but the work is done: confirm (the store says the lease was lost, which is reported).
				else void confirmClaim(store, eventId, token, leaseMs).then(reportProblem);
			};
			const call = () => {
				if (kind === "transaction") return onTransaction(resource as Transaction, context);
				return onRefund(resource as Refund, context);
			};
			// A callback that throws synchronously fails like one that rejects.
			new Promise((run) => run(call())).then(
				() => done(undefined, false),
				(error: unknown) => done(error, true),
			);
		});
	}

	return {
		async reconcile(input, reconcileOptions = {}) {
			const work: ["transaction" | "refund", string][] = [];
			for (const id of new Set(ids(input, "transactions"))) work.push(["transaction", id]);
			for (const id of new Set(ids(input, "refunds"))) work.push(["refund", id]);
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
			let next = 0;
			async function worker(): Promise<void> {
				for (let item = work[next++]; item !== undefined; item = work[next++]) {
					const outcome = await reconcileOne(item[0], item[1]);
					summary.outcomes.push(outcome);
					summary[counter[outcome.result]]++;
					summary.done++;
					if (onProgress) {
						const { outcomes: _, ...progress } = summary;
						try {
							onProgress(progress);
						} catch {
							// Progress display is best effort.
						}
					}
				}
			}
			await Promise.all(Array.from({ length: Math.min(concurrency, work.length) }, worker));
			return summary;
		},
	};
}
