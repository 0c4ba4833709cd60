import { errorKind, type GatewayErrorContext } from "./gateway-error.js";
import { GatewayRefusalError } from "./gateway-refusal-error.js";

/** One field the gateway refused, as its 422 response lists it. */
export interface GatewayFieldError {
	field: string;
	messages: string[];
}

/** The gateway refused the request's fields (HTTP 422 with an `errors` array). */
export class GatewayValidationError extends GatewayRefusalError {
	static override readonly [errorKind] = "GatewayValidationError";
	readonly errors: readonly GatewayFieldError[];

	constructor(message: string, errors: readonly GatewayFieldError[], context: GatewayErrorContext) {
		const detail = errors.map((e) => `${e.field}: ${e.messages.join(", ")}`).join("; ");
		super(`${message}${detail ? ` (${detail})` : ""}`, context);
		this.errors = errors;
	}
}
