import type * as z from "zod/mini";
import { RequestValidationError } from "../errors/request-validation-error.js";
import { toFieldIssues } from "../schemas/requests.js";
import { safeParse } from "../schemas/safe-parse.js";
import type { ClientContext } from "./context.js";

/** Parses parameters, or throws `RequestValidationError` listing every failing field (never a value) before anything is sent. */
export function validate<S extends z.core.$ZodType>(
	ctx: ClientContext,
	schema: S,
	params: unknown,
	path: string,
): z.output<S> {
	const result = safeParse(schema, params);
	if (result.success) return result.data;
	const error = new RequestValidationError(toFieldIssues(result.error), path);
	ctx.observer.error({ method: "POST", path, error });
	throw error;
}
