import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import { SignatureVerificationError } from "../../errors/signature-verification-error.js";
import { Seam } from "../../internal/seam.js";
import type { DriftReport } from "../../schemas/drift-reports.js";
import type { EventOutcome, StepWatcher } from "../claims/claimed-event.js";
import type { NotificationResponse } from "../http/exchange.js";
import { HttpRuleError } from "../http/http-rules.js";
import type { OpenedNotification } from "../message/verify.js";

/**
 * Why a delivery was refused, as `merchant_gateway.refusal` says: its HTTP rule (`method`, `content_type`,
 * `size`, `body_timeout`, `request`), its signature (`signature`), its body or fields (`schema`), or an
 * unexpected error (`error`).
 */
export type RefusalReason =
	| "method"
	| "content_type"
	| "size"
	| "body_timeout"
	| "request"
	| "signature"
	| "schema"
	| "error";

const REFUSAL_BY_STATUS: Readonly<Record<number, RefusalReason>> = {
	405: "method",
	415: "content_type",
	413: "size",
	408: "body_timeout",
};

/** The IPN handler's operation: its span's name, and the source its drift reports name. */
export const IPN_OPERATION = "ipn.handle";

/** Why `error` refused a delivery. */
export function refusalReason(error: unknown): RefusalReason {
	if (error instanceof HttpRuleError) return REFUSAL_BY_STATUS[error.httpStatus] ?? "request";
	if (error instanceof SignatureVerificationError) return "signature";
	if (error instanceof InvalidNotificationError) return "schema";
	return "error";
}

/** A delivery as it starts: its HTTP method (as the request gave it: any string, or none). */
export interface DeliveryStart {
	readonly method: string | undefined;
}

/** One delivery's lifecycle, told by the handler in this order. */
export interface DeliveryWatch {
	/** The body starts being read and verified; `verified`, or `finished` with a refusal, ends that step. */
	verifying(): void;
	/** The verified IPN: its event and its signed fields (personal data the watch must keep out). */
	verified(opened: OpenedNotification): void;
	/** Told of the run's steps (claim, callback, confirm or release), once verified; none when unwatched. */
	readonly steps: StepWatcher | undefined;
	/** Runs the merchant's callback (so that an instrumentation can make its span active around it). */
	inCallback<T>(run: () => T): T;
	/** A drift first seen (in this process) in this delivery. */
	drift(report: DriftReport): void;
	/**
	 * The response the delivery gets and the outcome it came from; `joined` when it joined a run of the same
	 * event in flight (whose own delivery was told the same outcome), `refusal` why it was refused.
	 */
	finished(
		outcome: EventOutcome,
		response: NotificationResponse,
		joined: boolean,
		refusal: RefusalReason | undefined,
	): void;
}

const nothing = () => undefined;

/** The watch of a delivery nobody watches. */
export const UNWATCHED_DELIVERY: DeliveryWatch = {
	verifying: nothing,
	verified: nothing,
	steps: undefined,
	inCallback: (run) => run(),
	drift: nothing,
	finished: nothing,
};

/** The IPN delivery's seam: what an instrumentation subscribes to. */
export const ipnDeliveries = new Seam<DeliveryStart, DeliveryWatch>("ipn.delivery");
