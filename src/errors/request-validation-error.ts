import { errorKind } from "./gateway-error.js";
import { InvalidInputError } from "./invalid-input-error.js";

/** One failed field rule. Never carries the field's value. */
export interface FieldIssue {
	/** Dotted path of the field, such as `browserDetails.screen_width`. */
	field: string;
	/** The rule that failed, in words. */
	message: string;
}

/**
 * Parameters broke the gateway's field rules. Thrown before anything is sent;
 * `issues` lists every failing field with its rule.
 */
export class RequestValidationError extends InvalidInputError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "RequestValidationError";
	/** Every failing field with its rule; never the field's value. */
	readonly issues: readonly FieldIssue[];

	constructor(issues: readonly FieldIssue[], path?: string) {
		const list = issues.map((issue) => `${issue.field || "(request)"}: ${issue.message}`).join("; ");
		super(`Invalid request${path ? ` to ${path}` : ""}: ${list}`, { path });
		this.issues = issues;
	}
}
