import { errorKind } from "./gateway-error.js";
import { InvalidInputError } from "./invalid-input-error.js";
import type { FieldIssue } from "./request-validation-error.js";

/**
 * Options are wrong: the client's (a missing key, a base URL that is not https,
 * a negative timeout...), the notification handler's or its store's. Thrown when
 * the object is made, before any request is sent or served.
 */
export class ConfigurationError extends InvalidInputError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "ConfigurationError";
	/** Every failing option with its rule; never the option's value. */
	readonly issues: readonly FieldIssue[];

	/** @param subject what the options belong to, as in "Invalid client options". */
	constructor(issues: readonly FieldIssue[], subject = "client options") {
		super(`Invalid ${subject}: ${issues.map((issue) => `${issue.field || "(options)"}: ${issue.message}`).join("; ")}`);
		this.issues = issues;
	}
}
