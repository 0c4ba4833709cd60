import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { isListKeys, naturalCompare, phpJsonString, phpNumberString, phpTrim } from "./php.js";

/**
 * The reference form of a 2.0 message written straight from its JSON text, in one pass: the truth that
 * the fast route (fast-form.ts) is held to, and the route of every text or object that route declines.
 *
 * The text decides what `JSON.parse` loses: member order at every depth and number literals.
 * The object that `JSON.parse` made from the same text, when given, supplies the decoded strings, and each
 * string is trimmed in that object as it is written, so what the verifier hands out is exactly
 * what was signed. Only for valid JSON text: the reader trusts its syntax
 * and checks only what `JSON.parse` does not (duplicate member names, nesting depth).
 */

/** Deeper nesting than this is refused rather than risking the call stack. */
export const MAX_DEPTH = 64;

/** Object keys and array indexes from the top down to the value being written, joined only for an error. */
export type PathStack = Array<string | number>;

/** The typed error naming the path of what cannot be signed and the rule it breaks. */
export function fail(path: PathStack, rule: string): never {
	let field = "";
	for (const part of path) field += typeof part === "number" ? `[${part}]` : field === "" ? part : `.${part}`;
	throw new MalformedMessageError(`Cannot canonicalize ${field || "the message"}: ${rule}.`, field || undefined);
}

/** A string as `json_encode` writes it, or the typed error naming where; shared by the signed-string forms. */
export function quoted(text: string, path: PathStack): string {
	const json = phpJsonString(text);
	if (json === undefined) fail(path, "text must be well-formed Unicode (it has a lone surrogate)");
	return json;
}

/** The index of the quote that closes the string opening at `open` (the text is valid JSON). */
export function closingQuote(text: string, open: number): number {
	let end = open;
	for (;;) {
		end = text.indexOf('"', end + 1);
		let before = end - 1;
		while (text.charCodeAt(before) === 0x5c) before--;
		// An even run of backslashes escapes itself, not the quote.
		if ((end - 1 - before) % 2 === 0) return end;
	}
}

const QUOTE = 0x22;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;

/**
 * What `JSON.parse` read for the container being written; `undefined` where it kept another value
 * than the text's (a repeated name: `{"a":["x"],"a":1}`). The writer then reads that part from the
 * text alone, and the object with the repeated name refuses the message once its members are counted.
 */
type Container = Record<string, unknown> | unknown[] | undefined;

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === "object" && value !== null && !Array.isArray(value);

/** A number literal ends at a delimiter: `,`, `}`, `]` or white space (the text is valid JSON). */
function endsNumber(unit: number): boolean {
	return unit === 0x2c || unit === CLOSE_OBJECT || unit === CLOSE_LIST || unit <= 0x20 || Number.isNaN(unit);
}

class TextFormWriter {
	at = 0;
	readonly text: string;
	readonly path: PathStack = [];

	constructor(text: string) {
		this.text = text;
	}

	/** Skips white space; returns the code unit it stops at. */
	next(): number {
		const text = this.text;
		let at = this.at;
		let unit = text.charCodeAt(at);
		while (unit === 0x20 || unit === 0x0a || unit === 0x0d || unit === 0x09) unit = text.charCodeAt(++at);
		this.at = at;
		return unit;
	}

	/** Moves past the string that starts here; returns the index of its closing quote. */
	skipString(): number {
		const end = closingQuote(this.text, this.at);
		this.at = end + 1;
		return end;
	}

	memberName(): string {
		const start = this.at;
		const end = this.skipString();
		const raw = this.text.slice(start + 1, end);
		return raw.includes("\\") ? (JSON.parse(this.text.slice(start, end + 1)) as string) : raw;
	}

	/** Moves past the value that starts here without writing it. */
	skipValue(): void {
		const unit = this.next();
		if (unit === QUOTE) return void this.skipString();
		if (unit !== OPEN_OBJECT && unit !== OPEN_LIST) {
			while (!endsNumber(this.text.charCodeAt(this.at))) this.at++;
			return;
		}
		let depth = 0;
		for (;;) {
			const at = this.next();
			if (at === QUOTE) {
				this.skipString();
				continue;
			}
			this.at++;
			if (at === OPEN_OBJECT || at === OPEN_LIST) depth++;
			else if ((at === CLOSE_OBJECT || at === CLOSE_LIST) && --depth === 0) return;
		}
	}

	/** Writes the value that starts here; `container[key]` is what `JSON.parse` read for it. */
	value(container: Container, key: string | number, depth: number): string {
		const unit = this.next();
		const text = this.text;
		const read = container === undefined ? undefined : (container as Record<string, unknown>)[key];
		switch (unit) {
			case QUOTE: {
				const start = this.at;
				const end = this.skipString();
				if (typeof read !== "string") return quoted(phpTrim(JSON.parse(text.slice(start, end + 1))), this.path);
				const trimmed = phpTrim(read);
				if (trimmed !== read) (container as Record<string, unknown>)[key] = trimmed;
				return quoted(trimmed, this.path);
			}
			case OPEN_OBJECT:
				return this.object(isObject(read) ? read : undefined, depth + 1);
			case OPEN_LIST:
				return this.list(Array.isArray(read) ? read : undefined, depth + 1);
			case 0x74: // true
				this.at += 4;
				return '"1"';
			case 0x66: // false
				this.at += 5;
				return '""';
			case 0x6e: // null
				this.at += 4;
				return '""';
		}
		const start = this.at;
		while (!endsNumber(text.charCodeAt(this.at))) this.at++;
		const written = phpNumberString(text.slice(start, this.at));
		if (written === undefined) fail(this.path, "numbers must be finite");
		return `"${written}"`;
	}

	deeper(depth: number): void {
		if (depth >= MAX_DEPTH) fail(this.path, `nesting deeper than ${MAX_DEPTH} levels is not allowed`);
	}

	list(items: unknown[] | undefined, depth: number): string {
		this.deeper(depth);
		this.at++;
		if (this.next() === CLOSE_LIST) {
			this.at++;
			return "[]";
		}
		let out = "[";
		for (let index = 0; ; index++) {
			this.path.push(index);
			out += (index > 0 ? "," : "") + this.value(items, index, depth);
			this.path.pop();
			const unit = this.next();
			this.at++;
			if (unit === CLOSE_LIST) return `${out}]`;
		}
	}

	/** The members of the object that starts here, each name with its written value, in the text's order. */
	members(object: Record<string, unknown> | undefined, depth: number, skip?: string): [string[], string[]] {
		this.deeper(depth);
		const names: string[] = [];
		const written: string[] = [];
		const objectStart = this.at;
		this.at++;
		let count = 0;
		if (this.next() === CLOSE_OBJECT) this.at++;
		else
			for (;;) {
				const name = this.memberName();
				this.next();
				this.at++; // the colon
				count++;
				if (name === skip) this.skipValue();
				else {
					this.path.push(name);
					written.push(this.value(object, name, depth));
					this.path.pop();
					names.push(name);
				}
				const unit = this.next();
				this.at++;
				if (unit === CLOSE_OBJECT) break;
				this.next();
			}
		// JSON.parse keeps one member per name: fewer own keys than members means a name repeats.
		if (object !== undefined && count !== Object.keys(object).length) {
			const where = this.path.length === 0 ? "" : ` (in ${this.path.join(".")})`;
			throw new MalformedMessageError(
				`The message is not valid JSON: duplicate member name at position ${objectStart}${where}.`,
			);
		}
		return [names, written];
	}

	object(object: Record<string, unknown> | undefined, depth: number): string {
		const [names, written] = this.members(object, depth);
		return this.writeMembers(names, written);
	}

	/** Members with their written values, as `json_encode` writes them: names `0..n-1` (or none) as a list. */
	writeMembers(names: string[], written: string[]): string {
		if (isListKeys(names)) return `[${written.join(",")}]`;
		let out = "{";
		for (let i = 0; i < names.length; i++) {
			const name = names[i] as string;
			this.path.push(name);
			out += `${i > 0 ? "," : ""}${quoted(name, this.path)}:${written[i]}`;
			this.path.pop();
		}
		return `${out}}`;
	}

	/** The signed string of the message object that starts here: its top level in PHP's natural order. */
	message(object: Record<string, unknown> | undefined): string {
		const [names, written] = this.members(object, 0, "signature");
		const order = names.map((_, i) => i);
		order.sort((a, b) => naturalCompare(names[a] as string, names[b] as string));
		// No names, or names 0..n-1, make a list, as for nested objects (never so in a real message).
		return this.writeMembers(
			order.map((i) => names[i] as string),
			order.map((i) => written[i] as string),
		);
	}
}

/**
 * The signed string of a 2.0 message text (of its `data` object when `wrapped`), read from the text;
 * `parsed`, what `JSON.parse` read from it, has its signed strings trimmed in place. The top-level
 * `signature` and a wrapper's own members are left out and untouched.
 * @internal the text reader; `routedTextForm` (canonical.ts) takes the fast route where it may
 */
export function readTextReferenceForm(text: string, parsed?: Record<string, unknown>, wrapped = false): string {
	const writer = new TextFormWriter(text);
	writer.next();
	if (!wrapped) return writer.message(parsed);
	writer.at++;
	let signed: string | undefined;
	let count = 0;
	for (let unit = writer.next(); unit !== CLOSE_OBJECT; unit = writer.next()) {
		if (unit === 0x2c) writer.at++;
		writer.next();
		const name = writer.memberName();
		writer.next();
		writer.at++; // the colon
		count++;
		if (name === "data" && writer.next() === OPEN_OBJECT)
			signed = writer.message(isObject(parsed?.data) ? parsed.data : undefined);
		else writer.skipValue();
	}
	if (parsed !== undefined && count !== Object.keys(parsed).length) {
		throw new MalformedMessageError("The message is not valid JSON: duplicate member name at position 0.");
	}
	if (signed === undefined) throw new MalformedMessageError("A wrapped response must have a data object.", "data");
	return signed;
}
