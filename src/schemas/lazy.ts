import type { z } from "zod";

/**
 * A module-level schema that is built on its first use. Building zod schemas
 * (and the first use of each zod class) is most of what importing the SDK would
 * otherwise cost, so no schema is built while the package loads. Callers parse
 * with `safeParse` / `parse`; `get()` returns the schema itself.
 */
export interface LazySchema<S extends z.ZodType> {
	/** The schema, built on the first call. */
	get(): S;
	safeParse(value: unknown): z.ZodSafeParseResult<z.output<S>>;
	parse(value: unknown): z.output<S>;
}

export function lazySchema<S extends z.ZodType>(build: () => S): LazySchema<S> {
	let schema: S | undefined;
	const get = (): S => {
		schema ??= build();
		return schema;
	};
	return {
		get,
		safeParse: (value) => get().safeParse(value) as z.ZodSafeParseResult<z.output<S>>,
		parse: (value) => get().parse(value) as z.output<S>,
	};
}

/** What a lazy schema parses to. */
export type LazyOutput<L> = L extends LazySchema<infer S> ? z.output<S> : never;
/** What a lazy schema accepts. */
export type LazyInput<L> = L extends LazySchema<infer S> ? z.input<S> : never;
