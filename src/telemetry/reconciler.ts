import type { StepWatcher } from "../notifications/claimed-event.js";
import type { ReconcileOutcome, ReconcileReport } from "../notifications/reconcile-types.js";
import type { OpenTelemetry } from "./api.js";
import { telemetryRedaction } from "./described.js";
import type { TelemetryProviders } from "./options.js";
import { Telemetry } from "./telemetry.js";

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

/** Makes the records of runs (the recorder module, loaded with `@opentelemetry/api`). */
export interface ReconcileRecorder {
	start(total: number): ReconcileRunRecord;
}

/** The reconciler's telemetry: a span per run, one per id under it, the ids' steps, the metrics. */
export class ReconcilerTelemetry {
	readonly #telemetry: Telemetry<ReconcileRecorder>;

	constructor(providers: TelemetryProviders, warn: (message: string) => void) {
		const load = async () => {
			const { ActiveReconcileRecorder } = await import("./reconciler-recorder.js");
			return (api: OpenTelemetry, given: TelemetryProviders) =>
				new ActiveReconcileRecorder(api, given, telemetryRedaction);
		};
		this.#telemetry = new Telemetry(providers, load, warn);
	}

	/** Starts a run's record (the first run waits for telemetry to be looked for). */
	async start(total: number): Promise<ReconcileRunRecord> {
		const recorder = await this.#telemetry.active();
		if (recorder === null) return NO_RUN;
		let run: ReconcileRunRecord;
		try {
			run = recorder.start(total);
		} catch {
			return NO_RUN;
		}
		// A tracer that throws costs the records, never the reconciliation.
		return {
			item: (kind, id) => {
				try {
					return run.item(kind, id);
				} catch {
					return NO_ITEM;
				}
			},
			finished: (report) => run.finished(report),
		};
	}
}
