import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { GatewayRefusalError } from "./gateway-refusal-error.js";

/** One field the gateway refused, as its 422 response lists it. */
export interface GatewayFieldError {
	/** The field's name, as the gateway spells it (`orderRef`). */
	field: string;
	/** The gateway's messages about it, such as "The order ref field has already been taken." */
	messages: string[];
}

/** The gateway refused the request's fields (HTTP 422 with an `errors` array). */
export class GatewayValidationError extends GatewayRefusalError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "GatewayValidationError";
	/** Each refused field with the gateway's messages. */
	readonly errors: readonly GatewayFieldError[];

	constructor(message: string, errors: readonly GatewayFieldError[], context: GatewayErrorContext) {
		const detail = errors.map((e) => `${e.field}: ${e.messages.join(", ")}`).join("; ");
		super(`${message}${detail ? ` (${detail})` : ""}`, context);
		this.errors = errors;
	}
}
