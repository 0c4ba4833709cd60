import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

/**
 * `zod/mini` ships no messages of its own ("Invalid input"); the SDK's schemas
 * name their rules, and the few built-in checks they leave to zod speak English,
 * as they did with classic zod. Passed per parse: zod's global configuration,
 * which a merchant's own zod may share, is left alone.
 */
let english: z.core.$ZodErrorMap | undefined;

/** `safeParse` with zod's English messages where a schema gives none of its own. */
export function safeParse<S extends z.core.$ZodType>(
	schema: S,
	value: unknown,
): z.core.util.SafeParseResult<z.output<S>> {
	english ??= en().localeError;
	return z.safeParse(schema, value, { error: english });
}
