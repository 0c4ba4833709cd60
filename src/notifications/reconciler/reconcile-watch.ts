import { Seam } from "../../internal/seam.js";
import type { Refund, Transaction } from "../../schemas/resources.js";
import type { StepWatcher } from "../claims/claimed-event.js";
import type { ReconcileOutcome, ReconcileReport } from "./reconcile-types.js";

/** A `reconcile()` run as it starts: how many ids it will reconcile. */
export interface ReconcileStart {
	readonly total: number;
}

/** One id's lifecycle within a run, in this order. */
export interface ReconcileItemWatch {
	/** Queries the gateway (so that an instrumentation can make its span active around the client's call). */
	querying<T>(query: () => Promise<T>): Promise<T>;
	/** The verified resource and the event id it makes. */
	resolved(resource: Transaction | Refund, eventId: string): void;
	/** Told of the run's steps (claim, callback, confirm or release), once resolved; none when unwatched. */
	readonly steps: StepWatcher | undefined;
	/** Runs the merchant's callback (so that an instrumentation can make its span active around it). */
	inCallback<T>(run: () => T): T;
	/** The id's result in the report. */
	finished(outcome: ReconcileOutcome): void;
}

/** One run's lifecycle: its ids, then its report. */
export interface ReconcileWatch {
	item(kind: "transaction" | "refund", id: string): ReconcileItemWatch;
	finished(report: ReconcileReport): void;
}

export const UNWATCHED_ITEM: ReconcileItemWatch = {
	querying: (query) => query(),
	resolved: () => undefined,
	steps: undefined,
	inCallback: (run) => run(),
	finished: () => undefined,
};

/** The watch of a run nobody watches. */
export const UNWATCHED_RECONCILIATION: ReconcileWatch = {
	item: () => UNWATCHED_ITEM,
	finished: () => undefined,
};

/** The reconciliation's seam: what an instrumentation subscribes to. */
export const reconciliations = new Seam<ReconcileStart, ReconcileWatch>("reconcile");
