import type * as z from "zod/mini";
import { safeParse } from "./safe-parse.js";

/**
 * A module-level schema that is built on its first use. Building zod schemas
 * (and the first use of each zod class) is most of what importing the SDK would
 * otherwise cost, so no schema is built while the package loads. Callers parse
 * with `safeParse` / `parse`; `get()` returns the schema itself.
 */
export interface LazySchema<S extends z.core.$ZodType> {
	/** The schema, built on the first call. */
	get(): S;
	safeParse(value: unknown): z.core.util.SafeParseResult<z.output<S>>;
	/** The parsed value, or throws the zod error. */
	parse(value: unknown): z.output<S>;
}

export function lazySchema<S extends z.core.$ZodType>(build: () => S): LazySchema<S> {
	let schema: S | undefined;
	const get = (): S => {
		schema ??= build();
		return schema;
	};
	return {
		get,
		safeParse: (value) => safeParse(get(), value),
		parse: (value) => {
			const result = safeParse(get(), value);
			if (!result.success) throw result.error;
			return result.data;
		},
	};
}

/** What a lazy schema parses to. */
export type LazyOutput<L> = L extends LazySchema<infer S> ? z.output<S> : never;
