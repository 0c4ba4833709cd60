import { isPlainObject } from "../../internal/plain-object.js";
import type { SignedStringForm } from "../canonical.js";
import { phpTrim } from "../php.js";
import { fail, MAX_DEPTH, type PathStack, quoted } from "../text-form.js";

function serialize(value: unknown, path: PathStack): string {
	switch (typeof value) {
		case "string":
			return quoted(phpTrim(value), path);
		case "number":
			if (!Number.isFinite(value)) fail(path, "numbers must be finite");
			return `"${value}"`;
		case "boolean":
			return value ? "true" : "false";
		case "object":
			if (value === null) return "null";
			if (path.length >= MAX_DEPTH) fail(path, `nesting deeper than ${MAX_DEPTH} levels is not allowed`);
			if (Array.isArray(value)) return serializeArray(value, path);
			if (!isPlainObject(value))
				fail(path, "only plain objects, arrays, strings, numbers, booleans and null are signed");
			return serializeObject(value, path, false);
		default:
			return fail(path, `a ${typeof value} cannot be signed`);
	}
}

function serializeArray(items: readonly unknown[], path: PathStack): string {
	let out = "[";
	for (let i = 0; i < items.length; i++) {
		path.push(i);
		out += (i > 0 ? "," : "") + serialize(items[i] ?? null, path);
		path.pop();
	}
	return `${out}]`;
}

function serializeObject(object: Record<string, unknown>, path: PathStack, dropSignature: boolean): string {
	// Sorted from the key list, not a rebuilt object, so integer-like keys keep code-unit order ("10" before "9").
	const keys = Object.keys(object).sort();
	let out = "{";
	for (const key of keys) {
		const item = object[key];
		if (item === undefined || (dropSignature && key === "signature")) continue;
		path.push(key);
		out += `${out.length > 1 ? "," : ""}${quoted(key, path)}:${serialize(item, path)}`;
		path.pop();
	}
	return `${out}}`;
}

/**
 * The 2.0 signed string of this SDK's first releases (its retired first guess at the signed string), for a
 * gateway or a counterpart (an older SDK, a test double) that still signs this way:
 * - the top-level `signature` is left out, and so are `undefined` values;
 * - keys sorted at EVERY depth, by UTF-16 code unit (`"B"` before `"a"`, `"10"` before `"9"`);
 * - strings trimmed with PHP's `trim()` set (space, `\t`, `\n`, `\r`, `\0`, `\x0B`) at every
 *   depth; numbers written as strings the way JavaScript writes them (`String(n)`: `"10.5"`,
 *   `"1e+21"`); `true`, `false` and `null` kept as JSON literals; `{}` stays `{}`;
 * - written as PHP's `json_encode` writes it: `/` as `\/`, non-ASCII as `\uXXXX`.
 *
 * Use it only when `diagnoseSignature` (or `npx merchant-gateway doctor`) says this form
 * verifies your counterpart's messages: pass it as the `signedString` option.
 *
 * @throws MalformedMessageError when the message is not a plain object or holds a value
 *   that cannot be signed (a non-finite number, a function, a lone surrogate), naming its path.
 */
export const retiredFirstDraftForm: SignedStringForm = (message) => {
	if (!isPlainObject(message)) fail([], "a signed message must be a plain JSON object");
	return serializeObject(message as Record<string, unknown>, [], true);
};
