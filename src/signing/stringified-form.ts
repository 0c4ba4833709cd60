import { setMember } from "../internal/plain-object.js";
import { phpJsonFromStringified, phpNaturalSort, phpStringOfNumber, phpStringOfParsedNumber, phpTrim } from "./php.js";

/**
 * The reference form of a message object written by `JSON.stringify`: each leaf becomes the string
 * PHP's `trim()` makes of it, the top level is sorted, and `phpJsonFromStringified` turns the text
 * into `json_encode`'s. A parsed message's containers whose leaves stay as they are go to
 * `JSON.stringify` as they are, the first changed leaf starting a copy; a caller's containers are
 * always copied, so that `JSON.stringify` reads only data the writer checked (never a getter).
 * The writer declines (`undefined`) wherever a rule needs more than this, and its callers then use
 * the exact writers, which also name what they refuse:
 * - an object whose first key starts with a digit: JavaScript lists integer-like keys first, so its
 *   order may not be the text's (a parsed message), and it may be written as a list (PHP's `0..n-1`);
 * - a number whose PHP string the value alone does not decide (see `phpStringOfParsedNumber`, for a
 *   parsed message), or that is not finite;
 * - anything but strings, finite numbers, booleans, null, arrays and plain objects (an absent value
 *   in a caller's object, too), nesting at `maxDepth`, a lone surrogate;
 * - a `toJSON` method on `Object.prototype` or `Array.prototype`, which `JSON.stringify` would call.
 */

/** Where the object comes from, which decides what the writer may do with it. */
export type TreeOwner =
	/** `JSON.parse` made it for the SDK: strings are trimmed in place, and numbers read by their value's rules. */
	| "parsed"
	/** The caller's: never changed (the writer copies it), numbers read as `JSON.stringify` writes them. */
	| "caller";

function startsWithDigit(name: string): boolean {
	const unit = name.charCodeAt(0);
	return unit >= 0x30 && unit <= 0x39;
}

/** One message's walk: create one per message (it counts the keys it sees). */
export class StringifiedFormWriter {
	/** The keys of every object walked (a parsed message's caller compares them with its text's member names). */
	keys = 0;
	readonly #owner: TreeOwner;
	readonly #maxDepth: number;
	readonly #number: (value: number) => string | undefined;

	constructor(owner: TreeOwner, maxDepth: number) {
		this.#owner = owner;
		this.#maxDepth = maxDepth;
		this.#number = owner === "parsed" ? phpStringOfParsedNumber : phpStringOfNumber;
	}

	/** A leaf or container held at `depth` (the top level is 0) as written, or `undefined` to decline. */
	value(value: unknown, depth: number): unknown {
		switch (typeof value) {
			case "string":
				return phpTrim(value);
			case "number":
				return this.#number(value);
			case "boolean":
				return value ? "1" : "";
			case "object":
				if (value === null) return "";
				if (depth + 1 >= this.#maxDepth) return undefined;
				if (Array.isArray(value)) return this.list(value, depth + 1);
				return Object.getPrototypeOf(value) === Object.prototype
					? this.object(value as Record<string, unknown>, depth + 1)
					: undefined;
		}
		return undefined;
	}

	/** A list as written: the list itself when nothing in it changes (a parsed message's), else a copy. */
	list(items: unknown[], depth: number): unknown[] | undefined {
		let copy: unknown[] | undefined = this.#owner === "caller" ? [] : undefined;
		for (let i = 0; i < items.length; i++) {
			const item = items[i];
			const written = this.value(item, depth);
			if (written === undefined) return undefined;
			if (written !== item) {
				if (typeof item === "string" && this.#owner === "parsed") items[i] = written;
				else copy ??= items.slice(0, i);
			}
			copy?.push(written);
		}
		return copy ?? items;
	}

	/** An object as written, as `list`; an empty one as an empty list. */
	object(object: Record<string, unknown>, depth: number): Record<string, unknown> | unknown[] | undefined {
		const names = Object.keys(object);
		this.keys += names.length;
		// PHP writes an empty array as a list.
		if (names.length === 0) return [];
		if (startsWithDigit(names[0] as string)) return undefined;
		let copy: Record<string, unknown> | undefined = this.#owner === "caller" ? {} : undefined;
		for (let i = 0; i < names.length; i++) {
			const name = names[i] as string;
			const item = object[name];
			const written = this.value(item, depth);
			if (written === undefined) return undefined;
			if (written !== item) {
				if (typeof item === "string" && this.#owner === "parsed") setMember(object, name, written);
				else if (copy === undefined) {
					copy = {};
					for (let j = 0; j < i; j++) setMember(copy, names[j] as string, object[names[j] as string]);
				}
			}
			if (copy !== undefined) setMember(copy, name, written);
		}
		return copy ?? object;
	}

	/**
	 * The signed string of a message object: its top level in PHP's natural order, without `signature`
	 * (whose value is only counted) and, in a caller's object, without absent values.
	 */
	message(message: Record<string, unknown>): string | undefined {
		if (Object.hasOwn(Object.prototype, "toJSON") || Object.hasOwn(Array.prototype, "toJSON")) return undefined;
		const names = Object.keys(message);
		this.keys += names.length;
		if (names.length > 0 && startsWithDigit(names[0] as string)) return undefined;
		const form: Record<string, unknown> = {};
		let written = 0;
		for (const name of phpNaturalSort(names)) {
			const item = message[name];
			if (name === "signature") {
				if (!this.count(item)) return undefined;
				continue;
			}
			if (item === undefined && this.#owner === "caller") continue;
			const value = this.value(item, 0);
			if (value === undefined) return undefined;
			if (typeof item === "string" && value !== item && this.#owner === "parsed") setMember(message, name, value);
			setMember(form, name, value);
			written++;
		}
		return written === 0 ? "[]" : phpJsonFromStringified(JSON.stringify(form));
	}

	/**
	 * Counts the keys of a value that is not signed (a signature, a wrapper's other members); `false`,
	 * to decline, past the nesting limit (the text reader skips such a value without recursion).
	 */
	count(value: unknown, depth = 0): boolean {
		if (typeof value !== "object" || value === null) return true;
		if (depth + 1 >= this.#maxDepth) return false;
		if (Array.isArray(value)) return value.every((item) => this.count(item, depth + 1));
		for (const name of Object.keys(value)) {
			this.keys++;
			if (!this.count((value as Record<string, unknown>)[name], depth + 1)) return false;
		}
		return true;
	}
}
