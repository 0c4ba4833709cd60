import type * as z from "zod/mini";
import { toFieldIssues } from "../../internal/field-issues.js";
import { safeParse } from "../../schemas/safe-parse.js";
import { type ApiResponse, groupIssues, validationFailed } from "../wire/spec-responses.js";

/**
 * Validates verified request fields with the SDK's own wire-level schema, so the
 * sandbox and the client enforce the same field rules, written once.
 */
export function validateFields<Schema extends z.core.$ZodType>(
	schema: Schema,
	fields: Record<string, unknown>,
): { value: z.output<Schema> } | ApiResponse {
	const result = safeParse(schema, fields);
	if (result.success) return { value: result.data };
	return validationFailed(groupIssues(toFieldIssues(result.error)));
}
