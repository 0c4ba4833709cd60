import fc from "fast-check";

/**
 * Strings that exercise D3: PHP-trimmable edges, Unicode spaces (kept), escapes, astral characters,
 * lone surrogates.
 */
export const awkwardString: fc.Arbitrary<string> = fc.oneof(
	fc.string({ unit: "binary", maxLength: 12 }),
	fc.string({ unit: "grapheme", maxLength: 12 }),
	fc
		.tuple(
			fc.constantFrom("", " ", "\t", "\n", "\r", "\0", "\x0B", "\u00a0", "\u2003", " \t\n"),
			fc.string({ maxLength: 8 }),
			fc.constantFrom("", " ", "\r\n", "\0", "\u00a0", "/", "\\", '"', "\u007f", "\u001f", "😀"),
		)
		.map(([a, b, c]) => `${a}${b}${c}`),
);

/** Keys, including integer-like ones (iterated first by JS) and names that tempt prototype pollution. */
export const awkwardKey: fc.Arbitrary<string> = fc.oneof(
	{ weight: 5, arbitrary: fc.string({ maxLength: 8 }) },
	{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 4 }) },
	{ weight: 2, arbitrary: fc.constantFrom("10", "9", "0", "1", "-1", "01", "1.5", "", "a", "B", "_", "é", "Z") },
	{ weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty") },
);

/** Finite numbers, with the ones whose formatting is tricky well represented. */
export const awkwardNumber: fc.Arbitrary<number> = fc.oneof(
	fc.integer(),
	fc.double({ noNaN: true, noDefaultInfinity: true }),
	fc.constantFrom(0, -0, 0.1 + 0.2, 1e21, 1e-7, 123e-20, 5e-324, Number.MAX_SAFE_INTEGER + 2, 10.5, 100, -3),
);

/**
 * Plain JSON objects built with own data properties only (so `__proto__` is a key,
 * as JSON.parse makes it), nested to a modest depth.
 */
export const jsonObject: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{
	value: unknown;
	object: Record<string, unknown>;
	array: unknown[];
}>((tie) => ({
	value: fc.oneof(
		{ depthSize: "small", withCrossShrink: true },
		awkwardString,
		awkwardNumber,
		fc.boolean(),
		fc.constant(null),
		tie("object"),
		tie("array"),
	),
	object: fc
		.array(fc.tuple(awkwardKey, tie("value")), { maxLength: 6 })
		.map((entries) => Object.fromEntries(entries) as Record<string, unknown>),
	array: fc.array(tie("value"), { maxLength: 5 }),
})).object;

/** A top-level message: any JSON object, except that a string `payload` would make it a 2.1 envelope (D4). */
export const message: fc.Arbitrary<Record<string, unknown>> = jsonObject.filter(
	(fields) => typeof fields.payload !== "string",
);

/** A deep copy with every object's keys inserted in reverse, then rotated by `shift`: same content, other order. */
export function reorder(value: unknown, shift: number): unknown {
	if (Array.isArray(value)) return value.map((item) => reorder(item, shift));
	if (typeof value !== "object" || value === null) return value;
	const keys = Object.keys(value).reverse();
	const turn = keys.length === 0 ? 0 : shift % keys.length;
	const rotated = [...keys.slice(turn), ...keys.slice(0, turn)];
	return Object.fromEntries(rotated.map((key) => [key, reorder((value as Record<string, unknown>)[key], shift)]));
}
