import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { isPlainObject, setMember } from "../internal/plain-object.js";
import {
	isListKeys,
	phpJsonFromStringified,
	phpNaturalSort,
	phpStringOfNumber,
	phpStringOfParsedNumber,
	phpTrim,
} from "./php.js";
import { closingQuote, fail, MAX_DEPTH, type PathStack } from "./text-form.js";

/**
 * The fast route to the reference form, for a message object and a message text alike: each leaf
 * becomes the string PHP's `trim()` makes of it, the top level is sorted, `JSON.stringify` writes the
 * result and `phpJsonFromStringified` turns its text into `json_encode`'s. The text reader
 * (text-form.ts) is the truth; this route is taken only where the walk proves that it writes what the
 * reader would, and declines (`undefined`) everywhere else.
 *
 * A text's object (`JSON.parse` made it for the SDK) may have lost what the form depends on: the
 * order of integer-like member names (listed first, ascending), the literal of a number (`-0.0`,
 * `1.0e+17`, an integer beyond 2^53) and repeated member names (one is kept). The walk proves the three
 * absent: no object's first name starts with a digit, every number is one whose PHP string its value
 * decides (`phpStringOfParsedNumber`), and the text has as many member names as the objects have keys.
 * Its strings are trimmed in place, so what the verifier hands out is what was signed.
 *
 * A caller's object is never changed: the walk copies it, so that `JSON.stringify` reads only data the
 * walk checked (never a getter), and refuses what cannot be signed, naming its path. Its order is the
 * object's own, and its numbers are read as `JSON.stringify` writes them. Where the top level has an
 * integer-like name, or the text may hold a lone surrogate, the reader reads the copy's JSON text.
 */

/** Where the object comes from, which decides what the walk may do with it. */
type TreeOwner =
	/** `JSON.parse` made it for the SDK: strings are trimmed in place, and numbers read by their value's rules. */
	| "parsed"
	/** The caller's: never changed (the walk copies it), numbers read as `JSON.stringify` writes them. */
	| "caller";

function startsWithDigit(name: string | undefined): boolean {
	const unit = name === undefined ? Number.NaN : name.charCodeAt(0);
	return unit >= 0x30 && unit <= 0x39;
}

/** One message's walk: create one per message (it counts the keys it sees). */
class FastFormWriter {
	/** The keys of every object walked (a parsed message's are compared with its text's member names). */
	keys = 0;
	/** What `JSON.stringify` wrote of the form, once `message` has run. */
	json = "";
	readonly path: PathStack = [];
	readonly #owner: TreeOwner;
	readonly #number: (value: number) => string | undefined;

	constructor(owner: TreeOwner) {
		this.#owner = owner;
		this.#number = owner === "parsed" ? phpStringOfParsedNumber : phpStringOfNumber;
	}

	/** Declines on a parsed message; on a caller's object, what cannot be signed is refused. */
	decline(rule: string): undefined {
		if (this.#owner === "caller") fail(this.path, rule);
		return undefined;
	}

	/** A leaf or container held at `depth` (the top level is 0) as written, or `undefined` to decline. */
	value(value: unknown, depth: number): unknown {
		switch (typeof value) {
			case "string":
				return phpTrim(value);
			case "number":
				return this.#number(value) ?? (Number.isFinite(value) ? undefined : this.decline("numbers must be finite"));
			case "boolean":
				return value ? "1" : "";
			case "object":
				if (value === null) return "";
				if (depth + 1 >= MAX_DEPTH) return this.decline(`nesting deeper than ${MAX_DEPTH} levels is not allowed`);
				if (Array.isArray(value)) return this.list(value, depth + 1);
				if (isPlainObject(value)) return this.object(value, depth + 1);
				return this.decline("only plain objects, arrays, strings, numbers, booleans and null can be signed");
		}
		return this.decline(`a ${typeof value} cannot be signed`);
	}

	/** A list as written: a parsed one itself, strings trimmed in place, unless another leaf changes (a copy). */
	list(items: unknown[], depth: number): unknown[] | undefined {
		const caller = this.#owner === "caller";
		let copy: unknown[] | undefined = caller ? [] : undefined;
		for (let i = 0; i < items.length; i++) {
			const item = items[i];
			// JSON.stringify writes a hole or undefined in a list as null.
			const written = caller ? this.member(i, item ?? null, depth) : this.value(item, depth);
			if (written === undefined) return undefined;
			if (written !== item) {
				if (typeof item === "string" && !caller) items[i] = written;
				else copy ??= items.slice(0, i);
			}
			copy?.push(written);
		}
		return copy ?? items;
	}

	/** A parsed object as written, as `list`; an empty one as an empty list, as PHP writes it. */
	object(object: Record<string, unknown>, depth: number): Record<string, unknown> | unknown[] | undefined {
		const names = Object.keys(object);
		this.keys += names.length;
		if (this.#owner === "caller") return this.copy(object, names, depth);
		if (names.length === 0) return [];
		// JavaScript lists integer-like names first: the text may have had another order.
		if (startsWithDigit(names[0])) return undefined;
		let copy: Record<string, unknown> | undefined;
		for (let i = 0; i < names.length; i++) {
			const name = names[i] as string;
			const item = object[name];
			const written = this.value(item, depth);
			if (written === undefined) return undefined;
			if (written !== item) {
				if (typeof item === "string") setMember(object, name, written);
				else if (copy === undefined) {
					copy = {};
					for (let j = 0; j < i; j++) setMember(copy, names[j] as string, object[names[j] as string]);
				}
			}
			if (copy !== undefined) setMember(copy, name, written);
		}
		return copy ?? object;
	}

	/** A caller's value as written, its name or index on the path of what the walk refuses. */
	member(name: string | number, item: unknown, depth: number): unknown {
		this.path.push(name);
		const written = this.value(item, depth);
		this.path.pop();
		return written;
	}

	/** A caller's object as written, always a copy: without absent (`undefined`) members, a list when they are `0..n-1`. */
	copy(object: Record<string, unknown>, names: string[], depth: number): Record<string, unknown> | unknown[] {
		const present: string[] = [];
		const values: unknown[] = [];
		for (const name of names) {
			const value = object[name];
			if (value === undefined) continue;
			present.push(name);
			values.push(value);
		}
		if (isListKeys(present)) return values.map((value, i) => this.member(i, value, depth));
		const copy: Record<string, unknown> = {};
		for (let i = 0; i < present.length; i++) {
			const name = present[i] as string;
			setMember(copy, name, this.member(name, values[i], depth));
		}
		return copy;
	}

	/**
	 * The signed string of a message object: its top level in PHP's natural order, without `signature`
	 * (a parsed message's is only counted) and, in a caller's object, without absent values.
	 */
	message(message: Record<string, unknown>): string | undefined {
		const caller = this.#owner === "caller";
		if (Object.hasOwn(Object.prototype, "toJSON") || Object.hasOwn(Array.prototype, "toJSON")) {
			if (caller) throw new MalformedMessageError(TO_JSON_RULE);
			return undefined;
		}
		const names = Object.keys(message);
		this.keys += names.length;
		// Integer-like names stay first in any object: only the text reader can put them in PHP's order.
		const sorted = !startsWithDigit(names[0]);
		if (!sorted && !caller) return undefined;
		const form: Record<string, unknown> = {};
		for (const name of sorted ? phpNaturalSort(names) : names) {
			const item = message[name];
			if (name === "signature") {
				if (!caller && !this.count(item)) return undefined;
				continue;
			}
			if (item === undefined && caller) continue;
			const value = caller ? this.member(name, item, 0) : this.value(item, 0);
			if (value === undefined) return undefined;
			if (typeof item === "string" && value !== item && !caller) setMember(message, name, value);
			setMember(form, name, value);
		}
		this.json = JSON.stringify(form);
		if (!sorted) return undefined;
		return this.json === "{}" ? "[]" : phpJsonFromStringified(this.json);
	}

	/**
	 * Counts the keys of a value that is not signed (a signature, a wrapper's other members); `false`,
	 * to decline, past the nesting limit (the text reader skips such a value without recursion).
	 */
	count(value: unknown, depth = 0): boolean {
		if (typeof value !== "object" || value === null) return true;
		if (depth + 1 >= MAX_DEPTH) return false;
		if (Array.isArray(value)) return value.every((item) => this.count(item, depth + 1));
		for (const name of Object.keys(value)) {
			this.keys++;
			if (!this.count((value as Record<string, unknown>)[name], depth + 1)) return false;
		}
		return true;
	}
}

const TO_JSON_RULE =
	"A message cannot be signed while Object.prototype or Array.prototype has a toJSON method: " +
	"JSON.stringify would not write it as it is.";

function isJsonSpace(unit: number): boolean {
	return unit === 0x20 || unit === 0x0a || unit === 0x0d || unit === 0x09;
}

/** How many member names a valid JSON text has: the strings followed by a colon. */
export function memberNameCount(text: string): number {
	let count = 0;
	for (let open = text.indexOf('"'); open !== -1; ) {
		let next = closingQuote(text, open) + 1;
		while (isJsonSpace(text.charCodeAt(next))) next++;
		if (text.charCodeAt(next) === 0x3a) count++;
		open = text.indexOf('"', next);
	}
	return count;
}

/**
 * The signed string of a caller's message object through the fast route, or the JSON text of its
 * checked copy (`json`) for the text reader.
 * @throws MalformedMessageError naming what cannot be signed.
 */
export function fastObjectForm(message: Record<string, unknown>): { form: string } | { json: string } {
	const writer = new FastFormWriter("caller");
	const form = writer.message(message);
	return form === undefined ? { json: writer.json } : { form };
}

/**
 * The signed string of a 2.0 message text through the fast route, from `parsed`, what `JSON.parse` read
 * from `text` (of its `data` when `wrapped`), trimming its strings in place and leaving the signature
 * untouched; `undefined` when `parsed` may not hold what `text` says, and only the text reader can tell.
 */
export function fastTextForm(text: string, parsed: Record<string, unknown>, wrapped: boolean): string | undefined {
	const writer = new FastFormWriter("parsed");
	const data = wrapped ? parsed.data : parsed;
	if (!isPlainObject(data)) return undefined;
	const form = writer.message(data);
	if (form === undefined) return undefined;
	if (wrapped) {
		// The wrapper's own members are not signed, and only counted.
		for (const name of Object.keys(parsed)) {
			writer.keys++;
			if (name !== "data" && !writer.count(parsed[name])) return undefined;
		}
	}
	return writer.keys === memberNameCount(text) ? form : undefined;
}
