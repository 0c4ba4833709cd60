// An order-preserving JSON reader for tests: it keeps member order and number literals in a
// tree, so test code can rewrite a signed text (the fuzz suite) or compare two texts as PHP
// arrays. The SDK itself writes the reference form straight from the text (src/signing/text-form.ts).
import { MalformedMessageError } from "../../src/index.js";

/**
 * A JSON object as written in the text: members in the text's order. A JavaScript object
 * would move integer-like keys (`"10"`, `"9"`) to the front, and the 2.0 signature covers
 * nested objects in the order the signer wrote them.
 */
export class TextObject {
	readonly keys: readonly string[];
	readonly values: readonly TextValue[];

	constructor(keys: readonly string[], values: readonly TextValue[]) {
		this.keys = keys;
		this.values = values;
	}
}

/**
 * A JSON number as written in the text. Whether the signer's PHP read it as an integer or a
 * float, and which integer, depends on the literal: `12345678901234567` and `1.0e+17` both
 * lose that in a JavaScript number.
 */
export class TextNumber {
	readonly literal: string;

	constructor(literal: string) {
		this.literal = literal;
	}
}

export type TextValue = string | boolean | null | TextNumber | TextObject | TextValue[];

/** Deeper nesting than this is refused rather than risking the call stack. */
export const MAX_DEPTH = 64;
/** Objects with more members than this check for duplicate names with a Set. */
const SCAN_LIMIT = 32;

function isDigit(unit: number): boolean {
	return unit >= 0x30 && unit <= 0x39;
}

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Reads JSON text keeping what `JSON.parse` loses: member order and number literals. */
class Reader {
	#at = 0;
	readonly text: string;
	readonly what: string;
	readonly field: string | undefined;

	constructor(text: string, what: string, field: string | undefined) {
		this.text = text;
		this.what = what;
		this.field = field;
	}

	fail(rule: string): never {
		throw new MalformedMessageError(`The ${this.what} is not valid JSON: ${rule} at position ${this.#at}.`, this.field);
	}

	skipSpace(): void {
		const text = this.text;
		let at = this.#at;
		for (let unit = text.charCodeAt(at); unit === 0x20 || unit === 0x0a || unit === 0x0d || unit === 0x09; ) {
			unit = text.charCodeAt(++at);
		}
		this.#at = at;
	}

	document(): TextValue {
		const value = this.value(0);
		this.skipSpace();
		if (this.#at !== this.text.length) this.fail("unexpected text after the value");
		return value;
	}

	value(depth: number): TextValue {
		this.skipSpace();
		const unit = this.text.charCodeAt(this.#at);
		if (unit === 0x22) return this.string();
		if (unit === 0x7b || unit === 0x5b) {
			if (depth >= MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
			return unit === 0x7b ? this.object(depth + 1) : this.array(depth + 1);
		}
		if (unit === 0x74) return this.literal("true", true);
		if (unit === 0x66) return this.literal("false", false);
		if (unit === 0x6e) return this.literal("null", null);
		return this.number(unit);
	}

	/** A number literal, kept as written: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	number(first: number): TextNumber {
		const text = this.text;
		const start = this.#at;
		let at = first === 0x2d ? start + 1 : start;
		const digitsFrom = (from: number) => {
			let end = from;
			while (isDigit(text.charCodeAt(end))) end++;
			return end;
		};
		let end = digitsFrom(at);
		if (end === at) this.fail(Number.isNaN(first) ? "unexpected end" : "unexpected character");
		if (text.charCodeAt(at) === 0x30 && end > at + 1) this.fail("leading zero in a number");
		at = end;
		if (text.charCodeAt(at) === 0x2e) {
			end = digitsFrom(at + 1);
			if (end === at + 1) this.fail("digits expected after '.'");
			at = end;
		}
		const e = text.charCodeAt(at);
		if (e === 0x65 || e === 0x45) {
			const sign = text.charCodeAt(at + 1);
			const from = sign === 0x2b || sign === 0x2d ? at + 2 : at + 1;
			end = digitsFrom(from);
			if (end === from) this.fail("digits expected in the exponent");
			at = end;
		}
		this.#at = at;
		return new TextNumber(text.slice(start, at));
	}

	literal<T>(word: string, value: T): T {
		if (!this.text.startsWith(word, this.#at)) this.fail("unexpected character");
		this.#at += word.length;
		return value;
	}

	object(depth: number): TextObject {
		this.#at++;
		const keys: string[] = [];
		const values: TextValue[] = [];
		// Member names seen so far: a scan of `keys` while the object is small, a Set once it is large,
		// so a hostile body with thousands of members cannot make the duplicate check quadratic.
		let seen: Set<string> | undefined;
		this.skipSpace();
		if (this.text.charCodeAt(this.#at) === 0x7d) {
			this.#at++;
			return new TextObject(keys, values);
		}
		for (;;) {
			this.skipSpace();
			if (this.text.charCodeAt(this.#at) !== 0x22) this.fail("expected a member name");
			const key = this.string();
			// PHP keeps the first position and the last value; refusing is clearer than either guess.
			if (seen === undefined && keys.length >= SCAN_LIMIT) seen = new Set(keys);
			if (seen === undefined ? keys.includes(key) : seen.has(key)) this.fail("duplicate member name");
			seen?.add(key);
			this.skipSpace();
			if (this.text.charCodeAt(this.#at++) !== 0x3a) this.fail("expected ':'");
			keys.push(key);
			values.push(this.value(depth));
			if (this.endOfList(0x7d)) return new TextObject(keys, values);
		}
	}

	array(depth: number): TextValue[] {
		this.#at++;
		const items: TextValue[] = [];
		this.skipSpace();
		if (this.text.charCodeAt(this.#at) === 0x5d) {
			this.#at++;
			return items;
		}
		for (;;) {
			items.push(this.value(depth));
			if (this.endOfList(0x5d)) return items;
		}
	}

	/** After a member or item: true at the closing bracket, false after a comma. */
	endOfList(close: number): boolean {
		this.skipSpace();
		const unit = this.text.charCodeAt(this.#at++);
		if (unit === close) return true;
		if (unit !== 0x2c) this.fail(`expected ',' or '${String.fromCharCode(close)}'`);
		return false;
	}

	string(): string {
		const text = this.text;
		const start = ++this.#at;
		let at = start;
		for (;;) {
			const unit = text.charCodeAt(at);
			if (unit === 0x22) {
				this.#at = at + 1;
				return text.slice(start, at);
			}
			if (unit === 0x5c) break;
			if (unit < 0x20 || Number.isNaN(unit)) {
				this.#at = at;
				this.fail(Number.isNaN(unit) ? "unterminated string" : "control character in a string");
			}
			at++;
		}
		this.#at = at;
		return text.slice(start, at) + this.escapedRest();
	}

	/** The rest of a string that has escapes, from the first backslash to the closing quote. */
	escapedRest(): string {
		const text = this.text;
		let out = "";
		let from = this.#at;
		for (let at = this.#at; ; ) {
			const unit = text.charCodeAt(at);
			if (unit === 0x22) {
				this.#at = at + 1;
				return out + text.slice(from, at);
			}
			if (unit < 0x20 || Number.isNaN(unit)) {
				this.#at = at;
				this.fail(Number.isNaN(unit) ? "unterminated string" : "control character in a string");
			}
			if (unit !== 0x5c) {
				at++;
				continue;
			}
			out += text.slice(from, at);
			const letter = text.charAt(at + 1);
			if (letter === "u") {
				const hex = text.slice(at + 2, at + 6);
				if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
					this.#at = at;
					this.fail("bad \\u escape");
				}
				out += String.fromCharCode(Number.parseInt(hex, 16));
				at += 6;
			} else {
				const escaped = ESCAPES[letter];
				if (escaped === undefined) {
					this.#at = at;
					this.fail("bad escape");
				}
				out += escaped;
				at += 2;
			}
			from = at;
		}
	}
}

/**
 * Parses JSON text into a tree that keeps member order and number literals.
 * @throws MalformedMessageError naming `what`, the rule and the position; duplicate
 *   member names and nesting deeper than 64 levels are refused.
 */
export function parseJsonText(text: string, what = "message", field?: string): TextValue {
	return new Reader(text, what, field).document();
}
