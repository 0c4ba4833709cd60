import { MAX_DEPTH } from "./canonical.js";
import { phpJsonFromStringified, phpNaturalSort, phpStringOfParsedNumber, phpTrim } from "./php.js";

/**
 * The reference form of a 2.0 message taken straight from the object `JSON.parse` made of its text,
 * for the texts where that object holds all the form needs, which are most real messages.
 *
 * `JSON.parse` loses three things the form depends on: the order of integer-like member names (it
 * lists them first, ascending), the literal of a number (`-0.0`, `1.0e+17`, an integer beyond 2^53),
 * and repeated member names (it keeps one; the text reader refuses such a text). Walking the object
 * proves the first two absent: no object's first name starts with a digit (integer-like names would
 * come first), and every number is one whose PHP string its value decides (`phpStringOfParsedNumber`).
 * One scan of the text proves the third: the text has as many member names as the objects have keys.
 * When any proof fails the caller reads the text itself (text-form.ts), which is always exact.
 *
 * The leaves become the strings PHP's `trim()` makes and the tree is written by `JSON.stringify`,
 * whose escapes differ from `json_encode`'s only where `phpJsonFromStringified` fixes them.
 */

const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** The index of the quote that closes the string opening at `open` (the text is valid JSON). */
export function closingQuote(text: string, open: number): number {
	let end = open;
	for (;;) {
		end = text.indexOf('"', end + 1);
		let before = end - 1;
		while (text.charCodeAt(before) === BACKSLASH) before--;
		// An even run of backslashes escapes itself, not the quote.
		if ((end - 1 - before) % 2 === 0) return end;
	}
}

function isJsonSpace(unit: number): boolean {
	return unit === 0x20 || unit === 0x0a || unit === 0x0d || unit === 0x09;
}

/** How many member names a valid JSON text has: the strings followed by a colon. */
export function memberNameCount(text: string): number {
	let count = 0;
	for (let open = text.indexOf('"'); open !== -1; ) {
		let next = closingQuote(text, open) + 1;
		while (isJsonSpace(text.charCodeAt(next))) next++;
		if (text.charCodeAt(next) === COLON) count++;
		open = text.indexOf('"', next);
	}
	return count;
}

function startsWithDigit(name: string): boolean {
	const unit = name.charCodeAt(0);
	return unit >= 0x30 && unit <= 0x39;
}

/** Sets `name` as an own data property, also when it is `__proto__` (assigning that would set the prototype). */
function define(object: Record<string, unknown>, name: string, value: unknown): void {
	if (name === "__proto__")
		Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
	else object[name] = value;
}

/**
 * Writes the parsed tree with every leaf as the reference form writes it. A container whose leaves all
 * stay as they are is used as is; the first changed leaf starts a copy. Strings are trimmed in place, in
 * the parsed tree itself, so that what the verifier hands out is what was signed. `undefined` anywhere
 * means the object may not hold what the text says.
 */
class ParsedFormWriter {
	/** The keys of every object walked, to compare with the text's member names. */
	keys = 0;

	/** A non-string value held at `depth` (the top level is 0) as written, or `undefined`. */
	value(value: unknown, depth: number): unknown {
		switch (typeof value) {
			case "number":
				return phpStringOfParsedNumber(value);
			case "boolean":
				return value ? "1" : "";
			case "object":
				if (value === null) return "";
				// The text reader refuses deeper nesting, naming where.
				if (depth + 1 >= MAX_DEPTH) return undefined;
				return Array.isArray(value)
					? this.list(value, depth + 1)
					: this.object(value as Record<string, unknown>, depth + 1);
		}
		return undefined;
	}

	list(items: unknown[], depth: number): unknown[] | undefined {
		let copy: unknown[] | undefined;
		for (let i = 0; i < items.length; i++) {
			const item = items[i];
			let written: unknown;
			if (typeof item === "string") {
				written = phpTrim(item);
				if (written !== item) items[i] = written;
			} else {
				written = this.value(item, depth);
				if (written === undefined) return undefined;
				if (copy === undefined && written !== item) copy = items.slice(0, i);
			}
			copy?.push(written);
		}
		return copy ?? items;
	}

	object(object: Record<string, unknown>, depth: number): Record<string, unknown> | unknown[] | undefined {
		const names = Object.keys(object);
		this.keys += names.length;
		// PHP writes an empty array as a list.
		if (names.length === 0) return [];
		if (startsWithDigit(names[0] as string)) return undefined;
		let copy: Record<string, unknown> | undefined;
		for (let i = 0; i < names.length; i++) {
			const name = names[i] as string;
			const item = object[name];
			let written: unknown;
			if (typeof item === "string") {
				written = phpTrim(item);
				if (written !== item) define(object, name, written);
			} else {
				written = this.value(item, depth);
				if (written === undefined) return undefined;
				if (copy === undefined && written !== item) {
					copy = {};
					for (let j = 0; j < i; j++) define(copy, names[j] as string, object[names[j] as string]);
				}
			}
			if (copy !== undefined) define(copy, name, written);
		}
		return copy ?? object;
	}

	/** The signed string of a message object: its top level in PHP's natural order, without `signature`. */
	message(message: Record<string, unknown>): string | undefined {
		const names = Object.keys(message);
		this.keys += names.length;
		if (names.length > 0 && startsWithDigit(names[0] as string)) return undefined;
		const form: Record<string, unknown> = {};
		let written = 0;
		for (const name of phpNaturalSort(names)) {
			const item = message[name];
			if (name === "signature") {
				this.count(item);
				continue;
			}
			let value: unknown;
			if (typeof item === "string") {
				value = phpTrim(item);
				if (value !== item) define(message, name, value);
			} else {
				value = this.value(item, 0);
				if (value === undefined) return undefined;
			}
			define(form, name, value);
			written++;
		}
		return written === 0 ? "[]" : phpJsonFromStringified(JSON.stringify(form));
	}

	/** Counts the keys of a value that is not signed (a wrapper's other members), for the text comparison. */
	count(value: unknown): void {
		if (typeof value !== "object" || value === null) return;
		if (Array.isArray(value)) for (const item of value) this.count(item);
		else
			for (const name of Object.keys(value)) {
				this.keys++;
				this.count((value as Record<string, unknown>)[name]);
			}
	}
}

/**
 * The signed string of a flat 2.0 message from `parsed`, what `JSON.parse` read from `text`, trimming
 * its strings in place and leaving the top-level `signature` untouched; `undefined` when `parsed` may
 * not hold what `text` says, and only the text reader can tell.
 * @internal
 */
export function parsedReferenceForm(text: string, parsed: Record<string, unknown>): string | undefined {
	const writer = new ParsedFormWriter();
	const form = writer.message(parsed);
	return form !== undefined && writer.keys === memberNameCount(text) ? form : undefined;
}

/**
 * The signed string of the `data` object of a wrapped 2.0 response, as `parsedReferenceForm`; the
 * wrapper's other members are not signed, and only counted.
 * @internal
 */
export function parsedWrappedReferenceForm(
	text: string,
	wrapper: Record<string, unknown>,
	data: Record<string, unknown>,
): string | undefined {
	const writer = new ParsedFormWriter();
	const form = writer.message(data);
	if (form === undefined) return undefined;
	for (const name of Object.keys(wrapper)) {
		writer.keys++;
		if (name !== "data") writer.count(wrapper[name]);
	}
	return writer.keys === memberNameCount(text) ? form : undefined;
}
