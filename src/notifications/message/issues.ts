import type * as z from "zod/mini";
import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";
import type { LazySchema } from "../../schemas/lazy.js";

const SHOWN_ISSUES = 5;

function pathOf(issue: z.core.$ZodIssue): string {
	return issue.path
		.map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
		.join(".")
		.replace(/\.\[/g, "[");
}

/**
 * `value` as `schema` parses it, else one `InvalidNotificationError` naming each field and its rule (`what`
 * names the message). zod's messages state the expected and received types, never the value.
 */
export function parseNotification<S extends z.core.$ZodType>(
	schema: LazySchema<S>,
	what: string,
	value: unknown,
): z.output<S> {
	const parsed = schema.safeParse(value);
	if (parsed.success) return parsed.data;
	const issues = parsed.error.issues;
	const first = issues[0];
	const listed = issues
		.slice(0, SHOWN_ISSUES)
		.map((issue) => `${pathOf(issue) || "(root)"}: ${issue.message}`)
		.join("; ");
	const more = issues.length > SHOWN_ISSUES ? ` (and ${issues.length - SHOWN_ISSUES} more)` : "";
	throw new InvalidNotificationError(
		`The ${what} is not of the documented shape: ${listed}${more}.`,
		first ? pathOf(first) || undefined : undefined,
	);
}
