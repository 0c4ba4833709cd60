import { errorKind, GatewayError } from "./gateway-error.js";

/**
 * Your callback finished after its claim's lease had ended, so another delivery
 * (or a reconciliation) may have run it as well. The event is acknowledged and
 * marked processed all the same; this only reaches `onError`. Make `leaseMs`
 * longer than your slowest callback.
 */
export class LeaseExpiredError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "LeaseExpiredError";
	/** The event whose lease ended. */
	readonly eventId: string;

	constructor(eventId: string, leaseMs: number) {
		const what = `The callback for ${eventId} finished after its ${leaseMs} ms lease had ended`;
		super(`${what}; another worker may have run it too. Make leaseMs longer than the slowest callback.`);
		this.eventId = eventId;
	}
}
