import type { z } from "zod";
import { RequestValidationError } from "../errors/request-validation-error.js";
import { toFieldIssues } from "../schemas/requests.js";
import type { ClientContext } from "./context.js";

/** Parses parameters, or throws `RequestValidationError` listing every failing field (never a value) before anything is sent. */
export function validate<S extends z.ZodType>(ctx: ClientContext, schema: S, params: unknown, path: string): z.output<S> {
	const result = schema.safeParse(params);
	if (result.success) return result.data;
	const error = new RequestValidationError(toFieldIssues(result.error), path);
	ctx.observer.error({ method: "POST", path, error });
	throw error;
}
