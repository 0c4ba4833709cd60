import { MAX_DEPTH } from "./canonical.js";
import { StringifiedFormWriter } from "./stringified-form.js";

/**
 * The reference form of a 2.0 message taken straight from the object `JSON.parse` made of its text,
 * for the texts where that object holds all the form needs, which are most real messages.
 *
 * `JSON.parse` loses three things the form depends on: the order of integer-like member names (it
 * lists them first, ascending), the literal of a number (`-0.0`, `1.0e+17`, an integer beyond 2^53),
 * and repeated member names (it keeps one; the text reader refuses such a text). The writer of
 * stringified-form.ts proves the first two absent as it walks the object: no object's first name
 * starts with a digit (integer-like names would come first), and every number is one whose PHP string
 * its value decides (`phpStringOfParsedNumber`). One scan of the text proves the third: the text has
 * as many member names as the objects have keys. When any proof fails the caller reads the text
 * itself (text-form.ts), which is always exact.
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

/**
 * The signed string of a flat 2.0 message from `parsed`, what `JSON.parse` read from `text`, trimming
 * its strings in place and leaving the top-level `signature` untouched; `undefined` when `parsed` may
 * not hold what `text` says, and only the text reader can tell.
 * @internal
 */
export function parsedReferenceForm(text: string, parsed: Record<string, unknown>): string | undefined {
	const writer = new StringifiedFormWriter("parsed", MAX_DEPTH);
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
	const writer = new StringifiedFormWriter("parsed", MAX_DEPTH);
	const form = writer.message(data);
	if (form === undefined) return undefined;
	for (const name of Object.keys(wrapper)) {
		writer.keys++;
		if (name !== "data" && !writer.count(wrapper[name])) return undefined;
	}
	return writer.keys === memberNameCount(text) ? form : undefined;
}
