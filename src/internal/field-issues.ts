import type * as z from "zod/mini";
import type { FieldIssue } from "../errors/request-validation-error.js";

/**
 * Zod issues as `{ field, message }[]`, safe to show: never the input value
 * (zod issues can carry `input`; it is never read here). An unknown key becomes
 * one issue per key.
 */
export function toFieldIssues(error: { readonly issues: readonly z.core.$ZodIssue[] }): FieldIssue[] {
	const out: FieldIssue[] = [];
	for (const issue of error.issues) {
		const base = issue.path.map(String).join(".");
		if (issue.code === "unrecognized_keys") {
			for (const key of issue.keys)
				out.push({ field: base ? `${base}.${key}` : key, message: "is not a field of this request" });
			continue;
		}
		out.push({ field: base, message: issue.message });
	}
	return out;
}
