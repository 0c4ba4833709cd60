import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import { callHook } from "../../internal/hooks.js";
import { driftWarning } from "../../schemas/drift-reports.js";
import type { Logger } from "../../transport/observer.js";
import type { EventOutcome, RunOutcome } from "../claims/claimed-event.js";
import { type DeliveryWatch, UNWATCHED_DELIVERY } from "./delivery-watch.js";
import type { NotificationErrorInfo } from "./handler-types.js";

/**
 * The handler's `onError` and `logger` as a watch of its deliveries: what went wrong in a delivery goes to
 * `onError` with the status the gateway was given, drift to the logger's warning.
 */
export class DeliveryReports {
	readonly #onError: ((error: unknown, info: NotificationErrorInfo) => void) | undefined;
	readonly #logger: Logger | undefined;
	/** The watch every delivery gets, or undefined when neither onError nor a logger listens. */
	readonly watch: DeliveryWatch | undefined;

	constructor(
		onError: ((error: unknown, info: NotificationErrorInfo) => void) | undefined,
		logger: Logger | undefined,
	) {
		this.#onError = onError;
		this.#logger = logger;
		this.watch =
			onError === undefined && logger === undefined
				? undefined
				: {
						...UNWATCHED_DELIVERY,
						drift: (report) => this.warn(driftWarning(report)),
						finished: (outcome, response, joined) => {
							// A joined delivery shares the run's outcome, reported once with the run's own delivery.
							if (!joined) this.outcome(outcome, response.status);
						},
					};
	}

	/** Tells `onError` what went wrong in a delivery's outcome, with the status its response had. */
	outcome(outcome: EventOutcome, status: number): void {
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

	warn(message: string): void {
		const warn = this.#logger?.warn;
		if (warn !== undefined) callHook(warn.bind(this.#logger), message);
	}
}
