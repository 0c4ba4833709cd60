import { isPlainObject } from "../../internal/plain-object.js";
import type { SignedStringForm } from "../canonical.js";
import { fail, type PathStack } from "../text-form.js";

let collator: Intl.Collator | undefined;

/**
 * What `a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" })` compares with:
 * made on first use, not at import.
 */
function snippetOrder(): Intl.Collator {
	collator ??= new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
	return collator;
}

/** `JSON.stringify`, a BigInt or a cycle as a typed error; `unwritten`: the rule when it writes nothing. */
export function stringified(value: unknown, path: PathStack, unwritten?: string): string {
	let json: string | undefined;
	try {
		json = JSON.stringify(value);
	} catch {
		fail(path, "the value cannot be written as JSON");
	}
	if (json === undefined) fail(path, unwritten ?? `a ${typeof value} cannot be signed`);
	return json;
}

function topLevelValue(value: unknown, path: PathStack): string {
	if (typeof value === "string") return JSON.stringify(value.trim());
	if (typeof value === "number") {
		if (!Number.isFinite(value)) fail(path, "numbers must be finite");
		return JSON.stringify(String(value));
	}
	return stringified(value, path);
}

/**
 * The 2.0 signed string as the gateway's NodeJS integration snippet computes it, for a
 * gateway (or an integration built from that snippet) that signs this way instead of the
 * PHP reference form:
 * - the top-level `signature` is left out, and so are `undefined` values;
 * - only the top level is sorted, with `localeCompare(b, undefined, { numeric: true,
 *   sensitivity: "base" })`: digit runs by value, letters without regard to case or accents
 *   (the order of the process's default locale, as the snippet's);
 * - top-level strings are trimmed with JavaScript's `trim()` (which also removes Unicode
 *   spaces), top-level numbers become strings (`String(n)`), booleans and `null` stay JSON
 *   literals;
 * - nested objects and arrays are written as `JSON.stringify` writes them: not sorted, not
 *   trimmed, numbers as numbers;
 * - then every `/` is written `\/`; non-ASCII characters are NOT escaped.
 *
 * Use it only when `diagnoseSignature` (or `npx merchant-gateway doctor`) says this form
 * verifies your gateway's messages: pass it as the `signedString` option.
 *
 * @throws MalformedMessageError when the message is not a plain object or holds a value
 *   that cannot be signed (a non-finite number, a function), naming its path.
 */
export const nodeSnippetForm: SignedStringForm = (message) => {
	if (!isPlainObject(message)) fail([], "a signed message must be a plain JSON object");
	const keys = Object.keys(message).filter((key) => key !== "signature" && message[key] !== undefined);
	keys.sort(snippetOrder().compare);
	let out = "{";
	for (const key of keys) {
		out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${topLevelValue(message[key], [key])}`;
	}
	// Outside strings JSON has no "/", so escaping every one in the text escapes those in keys and values.
	return `${out}}`.replaceAll("/", "\\/");
};
