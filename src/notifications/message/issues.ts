import type * as z from "zod/mini";
import { InvalidNotificationError } from "../../errors/invalid-notification-error.js";

const SHOWN_ISSUES = 5;

function pathOf(issue: z.core.$ZodIssue): string {
	return issue.path
		.map((part) => (typeof part === "number" ? `[${part}]` : String(part)))
		.join(".")
		.replace(/\.\[/g, "[");
}

/**
 * Turns zod issues into one `InvalidNotificationError` naming each field and its
 * rule. zod's messages state the expected and received types, never the value.
 */
export function notificationIssues(what: string, error: z.core.$ZodError): InvalidNotificationError {
	const issues = error.issues;
	const first = issues[0];
	const listed = issues
		.slice(0, SHOWN_ISSUES)
		.map((issue) => `${pathOf(issue) || "(root)"}: ${issue.message}`)
		.join("; ");
	const more = issues.length > SHOWN_ISSUES ? ` (and ${issues.length - SHOWN_ISSUES} more)` : "";
	return new InvalidNotificationError(
		`The ${what} is not of the documented shape: ${listed}${more}.`,
		first ? pathOf(first) || undefined : undefined,
	);
}
