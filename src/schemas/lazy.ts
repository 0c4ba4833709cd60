import type { z } from "zod";
import { type Acceptor, compileAcceptor } from "./fast-path.js";

/**
 * A module-level schema that is built on its first use. Building zod schemas
 * (and the first use of each zod class) is most of what importing the SDK would
 * otherwise cost, so no schema is built while the package loads. Callers parse
 * with `safeParse` / `parse`; `get()` returns the schema itself.
 *
 * A value the schema's compiled acceptor (fast-path.ts) passes is returned as
 * is, being what zod would return a copy of; every other value goes through zod.
 */
export interface LazySchema<S extends z.ZodType> {
	/** The schema, built on the first call. */
	get(): S;
	safeParse(value: unknown): z.ZodSafeParseResult<z.output<S>>;
	parse(value: unknown): z.output<S>;
}

export function lazySchema<S extends z.ZodType>(build: () => S): LazySchema<S> {
	let schema: S | undefined;
	let accept: Acceptor | undefined;
	const get = (): S => {
		if (schema === undefined) {
			schema = build();
			accept = compileAcceptor(schema);
		}
		return schema;
	};
	return {
		get,
		safeParse: (value) => {
			const zodSchema = get();
			if (accept?.(value)) return { success: true, data: value as z.output<S> };
			return zodSchema.safeParse(value) as z.ZodSafeParseResult<z.output<S>>;
		},
		parse: (value) => {
			const zodSchema = get();
			if (accept?.(value)) return value as z.output<S>;
			return zodSchema.parse(value) as z.output<S>;
		},
	};
}

/** What a lazy schema parses to. */
export type LazyOutput<L> = L extends LazySchema<infer S> ? z.output<S> : never;
/** What a lazy schema accepts. */
export type LazyInput<L> = L extends LazySchema<infer S> ? z.input<S> : never;
