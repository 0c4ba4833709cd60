import { type Attributes, type Context, context, type Span, trace } from "@opentelemetry/api";
import type { StepWatcher } from "../notifications/claims/claimed-event.js";
import type { ReconcileOutcome, ReconcileReport } from "../notifications/reconciler/reconcile-types.js";
import type {
	ReconcileItemWatch,
	ReconcileStart,
	ReconcileWatch,
} from "../notifications/reconciler/reconcile-watch.js";
import type { Refund, Transaction } from "../schemas/resources.js";
import { ActiveTelemetry, type OpenTelemetryOptions } from "./active.js";
import { describeError } from "./described.js";
import { ATTRIBUTES } from "./names.js";
import { recordError } from "./span-error.js";
import { defineEventInstruments, type EventInstruments, RunSteps } from "./steps.js";
import { eventIdValue, idValue, statusValue } from "./values.js";

/** The reconciliations' subscriber: a span per run and one per id under it, with the ids' steps and metrics. */
export function recordReconciliations(providers: OpenTelemetryOptions): (start: ReconcileStart) => ReconcileWatch {
	const active = new ActiveTelemetry(providers, defineEventInstruments);
	return (start) => new RecordedRun(active, start.total);
}

class RecordedRun implements ReconcileWatch {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #context: Context;

	/** @throws what the tracer throws: the reconciler then records nothing for this run. */
	constructor(active: ActiveTelemetry<EventInstruments>, total: number) {
		this.#active = active;
		const attributes = { [ATTRIBUTES.reconcileTotal]: total };
		this.#span = active.tracer.startSpan("reconcile", { attributes });
		this.#context = trace.setSpan(context.active(), this.#span);
	}

	/** @throws what the tracer throws: the reconciler then records nothing for this id. */
	item(kind: "transaction" | "refund", id: string): ReconcileItemWatch {
		return new RecordedItem(this.#active, this.#context, kind, id);
	}

	finished(report: ReconcileReport): void {
		try {
			this.#span.setAttributes({
				[ATTRIBUTES.reconcileProcessed]: report.processed,
				[ATTRIBUTES.reconcileAlreadyProcessed]: report.alreadyProcessed,
				[ATTRIBUTES.reconcileInProgress]: report.inProgress,
				[ATTRIBUTES.reconcilePending]: report.pending,
				[ATTRIBUTES.reconcileFailed]: report.failed,
			});
			this.#span.end();
		} catch {
			// A tracer that throws must not change the report.
		}
	}
}

class RecordedItem implements ReconcileItemWatch {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #context: Context;
	readonly #kind: "transaction" | "refund";
	#steps: RunSteps | undefined;
	#resource: object | undefined;

	constructor(active: ActiveTelemetry<EventInstruments>, parent: Context, kind: "transaction" | "refund", id: string) {
		this.#active = active;
		this.#kind = kind;
		const idAttribute = kind === "transaction" ? ATTRIBUTES.transactionId : ATTRIBUTES.refundId;
		const attributes = { [ATTRIBUTES.eventKind]: kind, [idAttribute]: idValue(id) };
		this.#span = active.tracer.startSpan(`reconcile.${kind}`, { attributes }, parent);
		this.#context = trace.setSpan(parent, this.#span);
	}

	get steps(): StepWatcher | undefined {
		return this.#steps?.watch;
	}

	querying<T>(query: () => Promise<T>): Promise<T> {
		return context.with(this.#context, query);
	}

	resolved(resource: Transaction | Refund, eventId: string): void {
		this.#resource = resource;
		this.#steps = new RunSteps(this.#active, "reconcile", this.#span, { [ATTRIBUTES.eventKind]: this.#kind });
		this.#span.setAttributes({
			[ATTRIBUTES.status]: statusValue(resource.status),
			[ATTRIBUTES.eventId]: eventIdValue(eventId),
		});
	}

	inCallback<T>(run: () => T): T {
		return this.#steps === undefined ? run() : this.#steps.inCallback(run);
	}

	finished(outcome: ReconcileOutcome): void {
		try {
			const point: Attributes = { [ATTRIBUTES.eventKind]: this.#kind, [ATTRIBUTES.outcome]: outcome.result };
			if (outcome.result === "failed") {
				const described = describeError(outcome.error, this.#resource);
				point[ATTRIBUTES.errorType] = described.type;
				if (this.#span.isRecording()) recordError(this.#span, described);
			}
			this.#span.setAttributes(point);
			this.#span.end();
			this.#active.instruments().reconciled.add(1, point);
		} catch {
			// A tracer or meter that throws must not change the report.
		}
	}
}
