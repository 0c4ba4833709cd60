import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import { callHook } from "../../internal/hooks.js";
import { errorName } from "../../internal/seam.js";
import type { EventOutcome, RunOutcome } from "../claims/claimed-event.js";
import type { NotificationErrorInfo, NotificationHandlerOptions } from "./handler-types.js";

/**
 * The handler's `onError` and `logger`: what went wrong in a delivery goes to `onError` with the status the
 * gateway was given, drift and telemetry that cannot record to the logger's warning.
 */
export class DeliveryReports {
	readonly #onError: NotificationHandlerOptions["onError"];
	readonly #logger: NotificationHandlerOptions["logger"];
	/** Whether onError or a logger listens. */
	readonly listens: boolean;

	constructor({ onError, logger }: Pick<NotificationHandlerOptions, "onError" | "logger">) {
		this.#onError = onError;
		this.#logger = logger;
		this.listens = onError !== undefined || logger !== undefined;
	}

	/** Tells `onError` what went wrong in a delivery's outcome, with the status its response had. */
	outcome(outcome: EventOutcome, status: number): void {
		if (this.#onError === undefined) return;
		const { eventId } = outcome;
		if ("problem" in outcome && outcome.problem !== undefined) this.report(outcome.problem, status, eventId);
		if (outcome.kind === "held") {
			const held = new InvalidNotificationError("The event is being processed elsewhere (its claim has not expired).");
			this.report(held, status, eventId);
		} else if ("error" in outcome) this.report(outcome.error, status, eventId);
	}

	/** How a run ended after its response was sent: reported with the status that response had. */
	late(outcome: RunOutcome): void {
		if (outcome.kind === "processed" && outcome.problem !== undefined)
			this.report(outcome.problem, 200, outcome.eventId);
		else if (outcome.kind === "callback_failed") this.report(outcome.error, 503, outcome.eventId);
		else if (outcome.kind === "store_unavailable") this.report(outcome.error, 500, outcome.eventId);
	}

	/** Tells `onError`; `replay` for a failed event's record that `failedEvents.retry` refused. */
	report(error: unknown, status: number, eventId: string | undefined, replay?: true): void {
		const info: NotificationErrorInfo = replay ? { status, eventId, replay } : { status, eventId };
		callHook<[unknown, NotificationErrorInfo]>(this.#onError, error, info);
	}

	/** Warns that an instrumentation failed to start for a delivery, which goes on without it. */
	readonly instrumentationFailed = (error: unknown): void =>
		this.warn(`An instrumentation failed to start; the delivery goes on without it: ${errorName(error)}`);

	warn(message: string): void {
		const warn = this.#logger?.warn;
		if (warn !== undefined) callHook(warn.bind(this.#logger), message);
	}
}
