import { MalformedMessageError } from "../errors/malformed-message-error.js";

/** Deeper nesting than this is refused rather than risking the call stack. */
const MAX_DEPTH = 64;

/** PHP `trim`'s default set: space, \t, \n, \r, \0, \x0B. Not Unicode spaces. */
const TRIMMABLE = /^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g;
const TRIM_EDGE = /^[ \t\n\r\0\x0B]|[ \t\n\r\0\x0B]$/;
/** Printable ASCII that PHP's json_encode writes unescaped (everything but `"`, `\` and `/`). */
const PLAIN_ASCII = /^[\x20\x21\x23-\x2e\x30-\x5b\x5d-\x7f]*$/;

const SHORT_ESCAPES: Record<number, string> = { 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 34: '\\"', 47: "\\/", 92: "\\\\" };

/** Trims the characters PHP's `trim` removes by default, and no others. */
export function phpTrim(value: string): string {
	return TRIM_EDGE.test(value) ? value.replace(TRIMMABLE, "") : value;
}

/** A JSON string literal escaped as PHP's `json_encode` does with its default flags. */
export function phpJsonString(value: string): string {
	if (PLAIN_ASCII.test(value)) return `"${value}"`;
	let out = '"';
	for (let i = 0; i < value.length; i++) {
		const unit = value.charCodeAt(i);
		const short = SHORT_ESCAPES[unit];
		if (short !== undefined) out += short;
		else if (unit < 0x20 || unit > 0x7f) out += `\\u${unit.toString(16).padStart(4, "0")}`;
		else out += value[i];
	}
	return `${out}"`;
}

function fail(path: string, rule: string): never {
	throw new MalformedMessageError(`Cannot canonicalize ${path || "the message"}: ${rule}.`, path || undefined);
}

function serialize(value: unknown, path: string, depth: number): string {
	switch (typeof value) {
		case "string":
			return phpJsonString(phpTrim(value));
		case "number":
			if (!Number.isFinite(value)) fail(path, "numbers must be finite");
			return `"${String(value)}"`;
		case "boolean":
			return value ? "true" : "false";
		case "object":
			if (value === null) return "null";
			if (depth >= MAX_DEPTH) fail(path, `nesting deeper than ${MAX_DEPTH} levels is not allowed`);
			if (Array.isArray(value)) {
				let out = "[";
				for (let i = 0; i < value.length; i++) {
					if (i > 0) out += ",";
					const item: unknown = value[i];
					out += item === undefined ? "null" : serialize(item, `${path}[${i}]`, depth + 1);
				}
				return `${out}]`;
			}
			if (!isPlainObject(value)) fail(path, "only plain objects, arrays, strings, numbers, booleans and null can be signed");
			return serializeObject(value, path, depth, false);
		default:
			return fail(path, `a ${typeof value} cannot be signed`);
	}
}

function serializeObject(value: Record<string, unknown>, path: string, depth: number, dropSignature: boolean): string {
	// Sort by UTF-16 code unit (the default sort), then serialize from the sorted list,
	// so integer-like keys keep string order ("10" before "9").
	const keys = Object.keys(value).sort();
	let out = "{";
	let first = true;
	for (const key of keys) {
		if (dropSignature && key === "signature") continue;
		const item = value[key];
		if (item === undefined) continue;
		if (!first) out += ",";
		first = false;
		out += `${phpJsonString(key)}:${serialize(item, path ? `${path}.${key}` : key, depth + 1)}`;
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
 *   value JSON cannot carry (a non-finite number, a function, a class instance).
 */
export function canonicalString(fields: Record<string, unknown>): string {
	if (!isPlainObject(fields)) fail("", "a signed message must be a plain JSON object");
	return serializeObject(fields, "", 0, true);
}
