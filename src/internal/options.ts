import * as z from "zod/mini";
import { ConfigurationError } from "../errors/configuration-error.js";
import type { LazySchema } from "../schemas/lazy.js";
import { toFieldIssues } from "./field-issues.js";

// The rules options are checked with, as zod schemas: the client's, the notification handler's,
// the reconciler's and the stores' options all state their rules (and defaults) this way.

/**
 * The longest duration an option takes, in milliseconds: 2^31-1, about 24.8 days. It is the longest
 * delay a timer honours (Node turns a longer `setTimeout` into 1 ms), and every duration option stops
 * here, timer or not, so one rule covers them all.
 */
export const MAX_DURATION_MS = 2_147_483_647;

const isFunction = (value: unknown) => typeof value === "function";

/** "is required" for a missing option, `rule` for a present one of the wrong kind. */
export const requiredOr = (rule: string) => ({
	error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : rule),
});

/** An integer option from `min` to `max` (the rule names both), `fallback` when absent. */
export const integer = (min: number, max: number, fallback: number) => {
	const rule = `must be an integer from ${min} to ${max}`;
	const inRange = (value: number) => Number.isInteger(value) && value >= min && value <= max;
	return z._default(z.number({ error: rule }).check(z.refine(inRange, rule)), fallback);
};

/** A duration option in milliseconds, from 1 to MAX_DURATION_MS, `fallback` when absent. */
export const duration = (fallback: number) => integer(1, MAX_DURATION_MS, fallback);

/** A finite number from `min` to `max`, fractions allowed (a percentage, a delay scaled by a factor). */
export const finiteNumber = (min: number, max: number, rule: string) => {
	const inRange = (value: number) => Number.isFinite(value) && value >= min && value <= max;
	return z.number({ error: rule }).check(z.refine(inRange, rule));
};

/** A count with no upper bound but the safe integers (a size in bytes, a number of entries). */
export const positiveCount = () => {
	const rule = "must be a positive integer";
	const valid = (value: number) => Number.isSafeInteger(value) && value > 0;
	return z.number({ error: rule }).check(z.refine(valid, rule));
};

/** A {@link positiveCount}, `fallback` when absent. */
export const positiveInteger = (fallback: number) => z._default(positiveCount(), fallback);

/** A function the caller must give (a callback). */
export const requiredFunction = <F>() => z.custom<F>(isFunction, requiredOr("must be a function"));

/** A function the caller may give (a hook, a clock). */
export const optionalFunction = <F>() => z.optional(z.custom<F>(isFunction, "must be a function"));

/** A yes/no option, `fallback` when absent. */
export const flag = (fallback: boolean) => z._default(z.boolean({ error: "must be a boolean" }), fallback);

/**
 * `options` checked against `schema`, with the defaults filled in. Absent options count as `{}`, so each
 * required one is named.
 * @throws ConfigurationError listing every failing option and its rule (never its value).
 */
export function parseOptions<S extends z.core.$ZodType>(
	schema: LazySchema<S>,
	options: unknown,
	subject: string,
): z.output<S> {
	const parsed = schema.safeParse(options ?? {});
	if (!parsed.success) throw new ConfigurationError(toFieldIssues(parsed.error), subject);
	return parsed.data;
}
