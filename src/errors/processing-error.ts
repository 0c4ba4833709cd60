import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { GatewayRefusalError } from "./gateway-refusal-error.js";

/** The gateway could not process an S2S charge (HTTP 400 or 500 with `data.transactionId`). */
export class ProcessingError extends GatewayRefusalError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "ProcessingError";
	/** The transaction the failure belongs to; query it or wait for its IPN. */
	readonly transactionId: string | undefined;

	constructor(message: string, transactionId: string | undefined, context: GatewayErrorContext) {
		super(message, context);
		this.transactionId = transactionId;
	}
}
