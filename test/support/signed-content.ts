import { parseJsonText, TextNumber, TextObject, type TextValue } from "./json-text.js";

/** How PHP writes a number as a string: digits, a fraction, PHP's exponent form. */
const PHP_NUMBER = /^-?[0-9]+(?:\.[0-9]+)?(?:E[+-][0-9]+)?$/;

/**
 * A parsed reference form as PHP arrays: ordered maps, compared here without their order. A
 * list is the map of its indexes, so `["a"]` and `{"0":"a"}` are the same content.
 */
function unordered(value: TextValue): unknown {
	if (value instanceof TextNumber) return value.literal;
	// A signed number leaf (a string in the reference form), compared to PHP's 14 significant digits: the
	// number handed out is the nearest JavaScript one, which the reference form may write as a float.
	if (typeof value === "string" && PHP_NUMBER.test(value)) return `number ${Number(value).toPrecision(14)}`;
	if (!Array.isArray(value) && !(value instanceof TextObject)) return value;
	const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : value.keys;
	const values = Array.isArray(value) ? value : value.values;
	const members = keys.map((key, i) => [key, unordered(values[i] as TextValue)] as const);
	return members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Whether two 2.0 signed strings carry the same content, nested member order aside, and
 * numbers to 14 significant digits: what a verifier hands out is JavaScript objects, which put
 * integer-like keys first whatever order the gateway signed (so `{"1":…,"0":…}` reads back as
 * a list), and JavaScript numbers. Read with the SDK's own parser: V8's JSON.parse can misread
 * escaped keys (nodejs/node#63785), and reference forms escape every non-ASCII character.
 */
export function sameSignedContent(a: string, b: string): boolean {
	return JSON.stringify(unordered(parseJsonText(a))) === JSON.stringify(unordered(parseJsonText(b)));
}
