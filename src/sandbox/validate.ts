import type { z } from "zod";
import { toFieldIssues } from "../schemas/requests.js";
import { type ApiReply, groupIssues, validationFailed } from "./replies.js";

/**
 * Validates verified request fields with the SDK's own wire-level schema, so the
 * sandbox and the client enforce the same field rules, written once.
 */
export function validateFields<Schema extends z.ZodType>(schema: Schema, fields: Record<string, unknown>): { value: z.output<Schema> } | ApiReply {
	const result = schema.safeParse(fields);
	if (result.success) return { value: result.data };
	return validationFailed(groupIssues(toFieldIssues(result.error)));
}

export const isReply = (value: unknown): value is ApiReply =>
	typeof value === "object" && value !== null && "status" in value && "json" in value && typeof (value as ApiReply).status === "number";
