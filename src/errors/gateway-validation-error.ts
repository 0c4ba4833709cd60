import { errorKind, GatewayError, type GatewayErrorContext } from "./gateway-error.js";

/** One field the gateway refused, as its 422 answer lists it. */
export interface GatewayFieldError {
	field: string;
	messages: string[];
}

/** The gateway refused the request's fields (HTTP 422 with an `errors` array). */
export class GatewayValidationError extends GatewayError {
	static override readonly [errorKind] = "GatewayValidationError";
	readonly errors: readonly GatewayFieldError[];

	constructor(message: string, errors: readonly GatewayFieldError[], context: GatewayErrorContext) {
		const detail = errors.map((e) => `${e.field}: ${e.messages.join(", ")}`).join("; ");
		super(`${message}${detail ? ` (${detail})` : ""}`, context);
		this.errors = errors;
	}
}
