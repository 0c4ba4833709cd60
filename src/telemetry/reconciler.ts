import type { Attributes, Context, Span } from "@opentelemetry/api";
import { KnownSecrets } from "../internal/redact.js";
import type { StepWatcher } from "../notifications/claimed-event.js";
import type { ReconcileOutcome, ReconcileReport } from "../notifications/reconcile-types.js";
import { defineEventInstruments, type EventInstruments, RunSteps } from "./events.js";
import { ATTRIBUTES } from "./names.js";
import type { TelemetryProviders } from "./options.js";
import { errorType, recordError } from "./span-error.js";
import { type ActiveTelemetry, Telemetry } from "./telemetry.js";

/** One id's record: its span (`reconcile.transaction`, `reconcile.refund`), its steps, its result. */
export interface ReconcileItemRecord {
	/** Queries the gateway with the item's span active, so that the client's span nests under it. */
	querying<T>(query: () => Promise<T>): Promise<T>;
	/** The verified resource: its status and event id, and its personal data to keep out of messages. */
	resolved(resource: object, status: string, eventId: string): void;
	/** What the event runner tells of its steps; undefined while telemetry is off. */
	readonly watch: StepWatcher | undefined;
	/** Runs the merchant's callback with its step span active. */
	inCallback<T>(run: () => T): T;
	/** The id's result in the report. */
	finished(outcome: ReconcileOutcome): void;
}

/** One `reconcile()` run's record: its span, parent of the ids' spans. */
export interface ReconcileRunRecord {
	item(kind: "transaction" | "refund", id: string): ReconcileItemRecord;
	finished(report: ReconcileReport): void;
}

const NO_ITEM: ReconcileItemRecord = {
	querying: (query) => query(),
	resolved: () => undefined,
	watch: undefined,
	inCallback: (run) => run(),
	finished: () => undefined,
};
const NO_RUN: ReconcileRunRecord = { item: () => NO_ITEM, finished: () => undefined };

/** The reconciler's telemetry: a span per run, one per id under it, the ids' steps, the metrics. */
export class ReconcilerTelemetry {
	readonly #telemetry: Telemetry<EventInstruments>;

	constructor(providers: TelemetryProviders, warn: (message: string) => void) {
		this.#telemetry = new Telemetry(providers, defineEventInstruments, warn);
	}

	/** Starts a run's record (the first run waits for `@opentelemetry/api` to be looked for). */
	async start(total: number): Promise<ReconcileRunRecord> {
		const active = await this.#telemetry.active();
		if (active === null) return NO_RUN;
		try {
			return new ActiveRun(active, total);
		} catch {
			return NO_RUN;
		}
	}
}

class ActiveRun implements ReconcileRunRecord {
	readonly #active: ActiveTelemetry<EventInstruments>;
	readonly #span: Span;
	readonly #context: Context;

	constructor(active: ActiveTelemetry<EventInstruments>, total: number) {
		this.#active = active;
		const attributes = { [ATTRIBUTES.reconcileTotal]: total };
		this.#span = active.tracer.startSpan("reconcile", { attributes });
		this.#context = active.api.trace.setSpan(active.api.context.active(), this.#span);
	}

	item(kind: "transaction" | "refund", id: string): ReconcileItemRecord {
		try {
			return new ActiveItem(this.#active, this.#context, kind, id);
		} catch {
			return NO_ITEM;
		}
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
	#steps: RunSteps | undefined;
	#resource: object | undefined;

	constructor(active: ActiveTelemetry<EventInstruments>, parent: Context, kind: "transaction" | "refund", id: string) {
		this.#active = active;
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
		this.#steps = new RunSteps(this.#active, "reconcile", this.#span, attributes, () => this.#secrets());
		this.#span.setAttributes({ [ATTRIBUTES.status]: status, [ATTRIBUTES.eventId]: eventId });
	}

	inCallback<T>(run: () => T): T {
		return this.#steps === undefined ? run() : this.#steps.inCallback(run);
	}

	finished(outcome: ReconcileOutcome): void {
		try {
			const point: Attributes = { [ATTRIBUTES.eventKind]: this.#kind, [ATTRIBUTES.outcome]: outcome.result };
			if (outcome.result === "failed") {
				point[ATTRIBUTES.errorType] = errorType(outcome.error);
				if (this.#span.isRecording()) recordError(this.#active.api, this.#span, outcome.error, this.#secrets());
			}
			this.#span.setAttributes(point);
			this.#span.end();
			this.#active.instruments().reconciled.add(1, point);
		} catch {
			// A tracer or meter that throws must not change the report.
		}
	}

	/** The resource's personal data (a cardholder's name, metadata), kept out of exception messages. */
	#secrets(): KnownSecrets | undefined {
		return this.#resource && new KnownSecrets(this.#resource as Record<string, unknown>, { personal: true });
	}
}
