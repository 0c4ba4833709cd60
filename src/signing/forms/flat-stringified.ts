import { isPlainObject } from "../../internal/plain-object.js";
import type { SignedStringForm } from "../canonical.js";
import { naturalCompare, phpStringOfNumber, phpTrim } from "../php.js";
import { fail, type PathStack, quoted } from "../text-form.js";
import { stringified } from "./node-snippet.js";

/** A top-level value as the string this form signs: PHP's string cast, or a nested value's JSON text. */
function leafText(value: unknown, path: PathStack): string {
	switch (typeof value) {
		case "string":
			return phpTrim(value);
		case "number": {
			const text = phpStringOfNumber(value);
			if (text === undefined) fail(path, "numbers must be finite");
			return text;
		}
		case "boolean":
			return value ? "1" : "";
		case "object":
			return stringified(value, path, "the value cannot be written as JSON");
		default:
			return fail(path, `a ${typeof value} cannot be signed`);
	}
}

/**
 * A 2.0 signed string seen in public PHP integrations that flatten the message before
 * signing, for a gateway that signs this way instead of the reference form:
 * - the top-level `signature` is left out, and so is every top-level key whose value is
 *   `""` or `null` (as received, before trimming) or `undefined`;
 * - only the top level is sorted, in PHP's natural order (`ksort($data, SORT_NATURAL)`);
 * - a nested object or array is signed as ONE string: its `JSON.stringify` text;
 * - every other top-level value is cast to a string as PHP casts it: strings trimmed with
 *   PHP's `trim()` set (space, `\t`, `\n`, `\r`, `\0`, `\x0B`), `true` -> `"1"`,
 *   `false` -> `""`, integers as digits, other numbers at PHP's `precision` 14;
 * - written as PHP's `json_encode` writes it: `/` as `\/`, non-ASCII as `\uXXXX`.
 *
 * Use it only when `diagnoseSignature` (or `npx merchant-gateway doctor`) says this form
 * verifies your gateway's messages: pass it as the `signedString` option.
 *
 * @throws MalformedMessageError when the message is not a plain object or holds a value
 *   that cannot be signed (a non-finite number, a lone surrogate), naming its path.
 */
export const flatStringifiedForm: SignedStringForm = (message) => {
	if (!isPlainObject(message)) fail([], "a signed message must be a plain JSON object");
	const keys = Object.keys(message).filter((key) => {
		const value = message[key];
		return key !== "signature" && value !== undefined && value !== null && value !== "";
	});
	// Stable, as PHP 8's ksort is.
	keys.sort(naturalCompare);
	let out = "{";
	for (const key of keys) {
		const path = [key];
		out += `${out.length > 1 ? "," : ""}${quoted(key, path)}:${quoted(leafText(message[key], path), path)}`;
	}
	return `${out}}`;
};
