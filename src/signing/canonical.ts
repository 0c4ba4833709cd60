import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { isPlainObject } from "../internal/plain-object.js";
import { naturalCompare, phpJsonString, phpNumberString, phpTrim } from "./php.js";
import { StringifiedFormWriter } from "./stringified-form.js";

/**
 * How a 2.0 message becomes the string its signature covers. The SDK uses the gateway's
 * reference form (`canonicalString`); pass another function where a gateway signs differently.
 * It receives the message without its `signature`.
 */
export type SignedStringForm = (message: Readonly<Record<string, unknown>>) => string;

/** Deeper nesting than this is refused rather than risking the call stack. */
export const MAX_DEPTH = 64;

/** Object keys and array indexes from the top down to the value being written, joined only for an error. */
export type PathStack = Array<string | number>;

/** @internal also used by the other signed-string forms, so they fail alike */
export function fail(path: PathStack, rule: string): never {
	let field = "";
	for (const part of path) field += typeof part === "number" ? `[${part}]` : field === "" ? part : `.${part}`;
	throw new MalformedMessageError(`Cannot canonicalize ${field || "the message"}: ${rule}.`, field || undefined);
}

/** @internal a string as `json_encode` writes it, or the typed error naming where; shared by the signed-string forms */
export function quoted(text: string, path: PathStack): string {
	const json = phpJsonString(text);
	if (json === undefined) fail(path, "text must be well-formed Unicode (it has a lone surrogate)");
	return json;
}

function numberLeaf(literal: string, path: PathStack): string {
	const text = phpNumberString(literal);
	if (text === undefined) fail(path, "numbers must be finite");
	return `"${text}"`;
}

/** Every leaf becomes a string as PHP's `trim()` makes it; containers follow PHP's arrays. */
function serialize(value: unknown, path: PathStack): string {
	switch (typeof value) {
		case "string":
			return quoted(phpTrim(value), path);
		case "number":
			if (!Number.isFinite(value)) fail(path, "numbers must be finite");
			// The literal JSON.stringify writes is what the receiver of the body reads.
			return numberLeaf(String(value), path);
		case "boolean":
			return value ? '"1"' : '""';
		case "object":
			if (value === null) return '""';
			if (path.length >= MAX_DEPTH) fail(path, `nesting deeper than ${MAX_DEPTH} levels is not allowed`);
			if (Array.isArray(value)) return serializeList(value, path);
			if (!isPlainObject(value))
				fail(path, "only plain objects, arrays, strings, numbers, booleans and null can be signed");
			return serializeMembers(...presentMembers(value), path);
		default:
			return fail(path, `a ${typeof value} cannot be signed`);
	}
}

function serializeList(items: readonly unknown[], path: PathStack): string {
	let out = "[";
	for (let i = 0; i < items.length; i++) {
		path.push(i);
		// JSON.stringify writes a hole or undefined in an array as null.
		out += (i > 0 ? "," : "") + serialize(items[i] ?? null, path);
		path.pop();
	}
	return `${out}]`;
}

/** PHP's json_encode writes an array whose keys are exactly 0..n-1, in order, as a list (so `{}` as `[]`). */
export function isListKeys(keys: readonly string[]): boolean {
	for (let i = 0; i < keys.length; i++) if (keys[i] !== String(i)) return false;
	return true;
}

function serializeMembers(keys: readonly string[], values: readonly unknown[], path: PathStack): string {
	if (isListKeys(keys)) return serializeList(values, path);
	return writeObject(keys, (i) => serialize(values[i], path), path);
}

/**
 * @internal An object as `json_encode` writes it: each key quoted, then `value(i)` written with the key on
 * `path`; shared by the signed-string forms.
 */
export function writeObject(keys: readonly string[], value: (index: number) => string, path: PathStack): string {
	let out = "{";
	for (let i = 0; i < keys.length; i++) {
		const key = keys[i] as string;
		path.push(key);
		out += `${i > 0 ? "," : ""}${quoted(key, path)}:${value(i)}`;
		path.pop();
	}
	return `${out}}`;
}

/** A plain object's keys and values in its own order, without absent (`undefined`) values. */
function presentMembers(object: Record<string, unknown>): [string[], unknown[]] {
	const keys: string[] = [];
	const values: unknown[] = [];
	for (const key of Object.keys(object)) {
		const value = object[key];
		if (value === undefined) continue;
		keys.push(key);
		values.push(value);
	}
	return [keys, values];
}

/**
 * The reference form of a message object, in its own key order: most objects through `JSON.stringify`
 * (stringified-form.ts), the others written here, which also names what cannot be signed.
 * @internal
 */
export function referenceForm(message: Record<string, unknown>): string {
	if (!isPlainObject(message)) fail([], "a signed message must be a plain JSON object");
	return new StringifiedFormWriter("caller", MAX_DEPTH).message(message) ?? serializedReferenceForm(message);
}

/**
 * `referenceForm` written member by member in every case.
 * @internal exported for the tests that hold the two routes to each other
 */
export function serializedReferenceForm(message: Record<string, unknown>): string {
	if (!isPlainObject(message)) fail([], "a signed message must be a plain JSON object");
	const members: Array<[string, unknown]> = [];
	for (const key of Object.keys(message)) {
		const value = message[key];
		if (value !== undefined && key !== "signature") members.push([key, value]);
	}
	// ksort(SORT_NATURAL) on the top level only; the sort is stable, as PHP 8's is.
	members.sort((a, b) => naturalCompare(a[0], b[0]));
	return serializeMembers(
		members.map((member) => member[0]),
		members.map((member) => member[1]),
		[],
	);
}

/**
 * The string that a 2.0 signature covers, in the gateway's reference form: the message
 * without its top-level `signature`; top-level keys in PHP's natural order, nested objects
 * in their own order; every leaf a string as PHP's `trim()` makes it (`true` -> `"1"`,
 * `false` and `null` -> `""`, floats at 14 significant digits); objects keyed `0..n-1`
 * and `{}` as lists; escaped as PHP's `json_encode` (`\/`, `\uXXXX`).
 *
 * @throws MalformedMessageError when `message` is not a plain object or holds a value JSON
 *   cannot carry (a non-finite number, a function, a lone surrogate), naming its path.
 */
export function canonicalString(message: Readonly<Record<string, unknown>>): string {
	return referenceForm(message as Record<string, unknown>);
}
