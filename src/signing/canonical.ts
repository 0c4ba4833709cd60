import { MalformedMessageError } from "../errors/malformed-message-error.js";

/** Deeper nesting than this is refused rather than risking the call stack. */
const MAX_DEPTH = 64;

const SHORT_ESCAPES: Record<number, string> = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 34: '\\"', 47: "\\/", 92: "\\\\" };
/** PHP json_encode's escape for each ASCII code unit (default flags); undefined means "written as is", DEL included. */
const ASCII_ESCAPES: Array<string | undefined> = Array.from(
	{ length: 0x80 },
	(_, unit) => SHORT_ESCAPES[unit] ?? (unit < 0x20 ? `\\u${unit.toString(16).padStart(4, "0")}` : undefined),
);

/** PHP `trim`'s default set: space, \t, \n, \r, \0, \x0B. Not Unicode spaces. */
function isTrimmable(unit: number): boolean {
	return unit === 0x20 || unit === 0x09 || unit === 0x0a || unit === 0x0d || unit === 0x00 || unit === 0x0b;
}

/** Trims the characters PHP's `trim` removes by default, and no others. */
export function phpTrim(value: string): string {
	let end = value.length;
	if (end === 0 || (!isTrimmable(value.charCodeAt(0)) && !isTrimmable(value.charCodeAt(end - 1)))) return value;
	let start = 0;
	while (start < end && isTrimmable(value.charCodeAt(start))) start++;
	while (end > start && isTrimmable(value.charCodeAt(end - 1))) end--;
	return value.slice(start, end);
}

/**
 * A JSON string literal escaped as PHP's `json_encode` does with its default flags:
 * `/` as `\/`, the short escapes, other control characters and every code unit
 * above U+007F (so astral characters as two surrogate escapes) as lowercase `\uXXXX`.
 * Runs of characters written as is are copied in one slice.
 */
export function phpJsonString(value: string): string {
	let out = '"';
	let from = 0;
	for (let i = 0; i < value.length; i++) {
		const unit = value.charCodeAt(i);
		const escaped = unit < 0x80 ? ASCII_ESCAPES[unit] : `\\u${unit.toString(16).padStart(4, "0")}`;
		if (escaped === undefined) continue;
		if (i > from) out += value.slice(from, i);
		out += escaped;
		from = i + 1;
	}
	return `${from === 0 ? out + value : out + value.slice(from)}"`;
}

/** Encoded `"key":` prefixes: messages of one kind repeat the same keys. Bounded, short keys only. */
const keyPrefixes = new Map<string, string>();
const KEY_CACHE_SIZE = 1024;
const KEY_CACHE_MAX_LENGTH = 64;

function keyPrefix(key: string): string {
	let prefix = keyPrefixes.get(key);
	if (prefix === undefined) {
		prefix = `${phpJsonString(key)}:`;
		if (keyPrefixes.size < KEY_CACHE_SIZE && key.length <= KEY_CACHE_MAX_LENGTH) keyPrefixes.set(key, prefix);
	}
	return prefix;
}

/** Code-unit order, as the default sort; insertion sort is faster for the few keys of a message's objects. */
function sortKeys(keys: string[]): string[] {
	if (keys.length > 32) return keys.sort();
	for (let i = 1; i < keys.length; i++) {
		const key = keys[i] as string;
		let j = i - 1;
		while (j >= 0 && (keys[j] as string) > key) {
			keys[j + 1] = keys[j] as string;
			j--;
		}
		keys[j + 1] = key;
	}
	return keys;
}

/** Object keys and array indexes from the top down to the value being written, joined only for an error. */
type PathStack = Array<string | number>;

function pathText(path: PathStack): string {
	let text = "";
	for (const part of path) text += typeof part === "number" ? `[${part}]` : text === "" ? part : `.${part}`;
	return text;
}

function fail(path: PathStack, rule: string): never {
	const field = pathText(path);
	throw new MalformedMessageError(`Cannot canonicalize ${field || "the message"}: ${rule}.`, field || undefined);
}

function serialize(value: unknown, path: PathStack): string {
	switch (typeof value) {
		case "string":
			return phpJsonString(phpTrim(value));
		case "number":
			if (!Number.isFinite(value)) fail(path, "numbers must be finite");
			return `"${value}"`;
		case "boolean":
			return value ? "true" : "false";
		case "object":
			if (value === null) return "null";
			if (path.length >= MAX_DEPTH) fail(path, `nesting deeper than ${MAX_DEPTH} levels is not allowed`);
			if (Array.isArray(value)) return serializeArray(value, path);
			if (!isPlainObject(value)) fail(path, "only plain objects, arrays, strings, numbers, booleans and null can be signed");
			return serializeObject(value, path, false);
		default:
			return fail(path, `a ${typeof value} cannot be signed`);
	}
}

function serializeArray(value: readonly unknown[], path: PathStack): string {
	let out = "[";
	for (let i = 0; i < value.length; i++) {
		if (i > 0) out += ",";
		const item: unknown = value[i];
		if (item === undefined) {
			out += "null";
			continue;
		}
		path.push(i);
		out += serialize(item, path);
		path.pop();
	}
	return `${out}]`;
}

function serializeObject(value: Record<string, unknown>, path: PathStack, dropSignature: boolean): string {
	// Serialize from the sorted key list, not a rebuilt object, so integer-like keys keep string order ("10" before "9").
	const keys = sortKeys(Object.keys(value));
	let out = "{";
	for (const key of keys) {
		if (dropSignature && key === "signature") continue;
		const item = value[key];
		if (item === undefined) continue;
		if (out.length > 1) out += ",";
		path.push(key);
		out += keyPrefix(key) + serialize(item, path);
		path.pop();
	}
	return `${out}}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
	const proto = Object.getPrototypeOf(value);
	return proto === Object.prototype || proto === null;
}

/**
 * The string that a 2.0 signature covers (protocol decision D3): the message
 * without its top-level `signature`, keys sorted at every depth, strings trimmed
 * as PHP's `trim`, numbers written as strings, escaped as PHP's `json_encode`.
 *
 * @throws MalformedMessageError when `fields` is not a plain object or holds a
 *   value JSON cannot carry (a non-finite number, a function, a class instance),
 *   naming the field's path (`metadata.items[2].price`).
 */
export function canonicalString(fields: Record<string, unknown>): string {
	if (!isPlainObject(fields)) fail([], "a signed message must be a plain JSON object");
	return serializeObject(fields, [], true);
}
