import type { Attributes, Context, Span } from "@opentelemetry/api";
import type { StepWatcher } from "../notifications/claimed-event.js";
import type { ReconcileOutcome, ReconcileReport } from "../notifications/reconcile-types.js";
import { ActiveTelemetry } from "./active.js";
import type { OpenTelemetry } from "./api.js";
import type { TelemetryRedaction } from "./described.js";
import { defineEventInstruments, type EventInstruments, RunSteps } from "./events.js";
import { ATTRIBUTES } from "./names.js";
import type { TelemetryProviders } from "./options.js";
import type { ReconcileItemRecord, ReconcileRecorder, ReconcileRunRecord } from "./reconciler.js";
import { recordError } from "./span-error.js";

// The reconciler's recording code: loaded with @opentelemetry/api (reconciler.ts), never without it.

/** Makes a span per run and per id, with the reconciler's tracer and instruments. */
export class ActiveReconcileRecorder implements ReconcileRecorder {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #redaction: TelemetryRedaction;

	constructor(api: OpenTelemetry, providers: TelemetryProviders, redaction: TelemetryRedaction) {
		this.#active = new ActiveTelemetry(api, providers, defineEventInstruments);
		this.#redaction = redaction;
	}

	/** @throws what the tracer throws: the reconciler then records nothing for this run. */
	start(total: number): ReconcileRunRecord {
		return new ActiveRun(this.#active, total, this.#redaction);
	}
}

class ActiveRun implements ReconcileRunRecord {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #context: Context;
	readonly #redaction: TelemetryRedaction;

	constructor(active: ActiveTelemetry<EventInstruments>, total: number, redaction: TelemetryRedaction) {
		this.#active = active;
		this.#redaction = redaction;
		const attributes = { [ATTRIBUTES.reconcileTotal]: total };
		this.#span = active.tracer.startSpan("reconcile", { attributes });
		this.#context = active.api.trace.setSpan(active.api.context.active(), this.#span);
	}

	/** @throws what the tracer throws: the reconciler then records nothing for this id. */
	item(kind: "transaction" | "refund", id: string): ReconcileItemRecord {
		return new ActiveItem(this.#active, this.#context, kind, id, this.#redaction);
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

class ActiveItem implements ReconcileItemRecord {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #context: Context;
	readonly #kind: "transaction" | "refund";
	readonly #redaction: TelemetryRedaction;
	#steps: RunSteps | undefined;
	#resource: object | undefined;

	constructor(
		active: ActiveTelemetry<EventInstruments>,
		parent: Context,
		kind: "transaction" | "refund",
		id: string,
		redaction: TelemetryRedaction,
	) {
		this.#active = active;
		this.#redaction = redaction;
		this.#kind = kind;
		const idAttribute = kind === "transaction" ? ATTRIBUTES.transactionId : ATTRIBUTES.refundId;
		const attributes = { [ATTRIBUTES.eventKind]: kind, [idAttribute]: id };
		this.#span = active.tracer.startSpan(`reconcile.${kind}`, { attributes }, parent);
		this.#context = active.api.trace.setSpan(parent, this.#span);
	}

	get watch(): StepWatcher | undefined {
		return this.#steps?.watch;
	}

	querying<T>(query: () => Promise<T>): Promise<T> {
		return this.#active.api.context.with(this.#context, query);
	}

	resolved(resource: object, status: string, eventId: string): void {
		this.#resource = resource;
		const attributes: Attributes = { [ATTRIBUTES.eventKind]: this.#kind };
		this.#steps = new RunSteps(this.#active, "reconcile", this.#span, attributes, this.#redaction);
		this.#span.setAttributes({ [ATTRIBUTES.status]: status, [ATTRIBUTES.eventId]: eventId });
	}

	inCallback<T>(run: () => T): T {
		return this.#steps === undefined ? run() : this.#steps.inCallback(run);
	}

	finished(outcome: ReconcileOutcome): void {
		try {
			const point: Attributes = { [ATTRIBUTES.eventKind]: this.#kind, [ATTRIBUTES.outcome]: outcome.result };
			if (outcome.result === "failed") {
				const described = this.#redaction.error(outcome.error, this.#resource);
				point[ATTRIBUTES.errorType] = described.type;
				if (this.#span.isRecording()) recordError(this.#active.api, this.#span, described);
			}
			this.#span.setAttributes(point);
			this.#span.end();
			this.#active.instruments().reconciled.add(1, point);
		} catch {
			// A tracer or meter that throws must not change the report.
		}
	}
}
