import type * as z from "zod/mini";
import { RequestValidationError } from "../errors/request-validation-error.js";
import { toFieldIssues } from "../internal/field-issues.js";
import { safeParse } from "../schemas/safe-parse.js";

/** Parses parameters, or throws `RequestValidationError` listing every failing field (never a value). */
export function validate<S extends z.core.$ZodType>(schema: S, params: unknown, path: string): z.output<S> {
	const result = safeParse(schema, params);
	if (result.success) return result.data;
	throw new RequestValidationError(toFieldIssues(result.error), path);
}
