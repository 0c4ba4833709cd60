import { parseJsonText, TextNumber, TextObject, type TextValue } from "../../src/signing/json-text.js";

/**
 * A parsed reference form as PHP arrays: ordered maps, compared here without their order. A
 * list is the map of its indexes, so `["a"]` and `{"0":"a"}` are the same content.
 */
function unordered(value: TextValue): unknown {
	if (value instanceof TextNumber) return value.literal;
	if (!Array.isArray(value) && !(value instanceof TextObject)) return value;
	const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : value.keys;
	const values = Array.isArray(value) ? value : value.values;
	const members = keys.map((key, i) => [key, unordered(values[i] as TextValue)] as const);
	return members.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Whether two 2.0 signed strings carry the same content, nested member order aside: what a
 * verifier hands out is JavaScript objects, which put integer-like keys first whatever order
 * the gateway signed (and `{"1":…,"0":…}` then reads back as a list). Read with the SDK's own
 * parser: V8's JSON.parse can misread escaped keys (nodejs/node#63785), and reference forms
 * escape every non-ASCII character.
 */
export function sameSignedContent(a: string, b: string): boolean {
	return JSON.stringify(unordered(parseJsonText(a))) === JSON.stringify(unordered(parseJsonText(b)));
}
