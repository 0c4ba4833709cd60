import { type Context, context, trace } from "@opentelemetry/api";
import type { ReconcileOutcome, ReconcileReport } from "../notifications/reconciler/reconcile-types.js";
import type { ReconcileItemWatch, ReconcileWatch } from "../notifications/reconciler/reconcile-watch.js";
import type { Refund, Transaction } from "../schemas/resources.js";
import type { ActiveTelemetry } from "./active.js";
import { describeError } from "./described.js";
import type { EventInstruments } from "./instruments.js";
import { ATTRIBUTES } from "./names.js";
import { RecordedSpan } from "./recorded.js";
import { RecordedRun } from "./run.js";
import { eventIdValue, idValue, statusValue } from "./values.js";

/** A reconciliation recorded: a span per run and one per id under it, with the ids' steps and metrics. */
export class RecordedReconciliation extends RecordedSpan<EventInstruments> implements ReconcileWatch {
	readonly #context: Context;

	/** @throws what the tracer throws: the reconciler then records nothing for this run. */
	constructor(active: ActiveTelemetry<EventInstruments>, total: number) {
		super(active, "reconcile", { attributes: { [ATTRIBUTES.reconcileTotal]: total } });
		this.#context = trace.setSpan(context.active(), this.span);
	}

	/** @throws what the tracer throws: the reconciler then records nothing for this id. */
	item(kind: "transaction" | "refund", id: string): ReconcileItemWatch {
		return new RecordedItem(this.active, this.#context, kind, id);
	}

	finished(report: ReconcileReport): void {
		try {
			this.span.setAttributes({
				[ATTRIBUTES.reconcileProcessed]: report.processed,
				[ATTRIBUTES.reconcileAlreadyProcessed]: report.alreadyProcessed,
				[ATTRIBUTES.reconcileInProgress]: report.inProgress,
				[ATTRIBUTES.reconcilePending]: report.pending,
				[ATTRIBUTES.reconcileFailed]: report.failed,
			});
			this.span.end();
		} catch {
			// A tracer that throws must not change the report.
		}
	}
}

class RecordedItem extends RecordedRun implements ReconcileItemWatch {
	/** Known from the start: the id's. */
	declare protected kind: "transaction" | "refund";
	readonly #context: Context;
	#resource: object | undefined;

	constructor(active: ActiveTelemetry<EventInstruments>, parent: Context, kind: "transaction" | "refund", id: string) {
		const idAttribute = kind === "transaction" ? ATTRIBUTES.transactionId : ATTRIBUTES.refundId;
		const attributes = { [ATTRIBUTES.eventKind]: kind, [idAttribute]: idValue(id) };
		super(active, "reconcile", `reconcile.${kind}`, { attributes }, parent);
		this.kind = kind;
		this.#context = trace.setSpan(parent, this.span);
	}

	querying<T>(query: () => Promise<T>): Promise<T> {
		return context.with(this.#context, query);
	}

	resolved(resource: Transaction | Refund, eventId: string): void {
		this.#resource = resource;
		this.recordSteps(this.kind);
		this.span.setAttributes({
			[ATTRIBUTES.status]: statusValue(resource.status),
			[ATTRIBUTES.eventId]: eventIdValue(eventId),
		});
	}

	finished(outcome: ReconcileOutcome): void {
		try {
			const described = outcome.result === "failed" ? describeError(outcome.error, this.#resource) : undefined;
			const point = this.point(outcome.result, described);
			if (described !== undefined && this.recording) this.recordError(described);
			this.span.setAttributes(point);
			this.end("reconciled", point);
		} catch {
			// A tracer or meter that throws must not change the report.
		}
	}
}
