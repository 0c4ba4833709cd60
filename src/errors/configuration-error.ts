import { errorKind, GatewayError } from "./gateway-error.js";
import type { FieldIssue } from "./request-validation-error.js";

/**
 * The client's options are wrong (a missing key, a base URL that is not https,
 * a negative timeout...). Thrown by the constructor, before any request.
 */
export class ConfigurationError extends GatewayError {
	static override readonly [errorKind] = "ConfigurationError";
	/** Every failing option with its rule; never the option's value. */
	readonly issues: readonly FieldIssue[];

	constructor(issues: readonly FieldIssue[]) {
		super(`Invalid client options: ${issues.map((issue) => `${issue.field || "(options)"}: ${issue.message}`).join("; ")}`);
		this.issues = issues;
	}
}
