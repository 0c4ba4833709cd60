import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedMessageError } from "../../src/index.js";
import { referenceFormOfText, routedObjectForm } from "../../src/signing/canonical.js";
import { canonicalString } from "../../src/signing/index.js";
import { readTextReferenceForm } from "../../src/signing/text-form.js";
import { awkwardKey, awkwardNumber, awkwardString, jsonObject } from "./arbitraries.js";

/** The canonical string of `{ v: value }`, minus the wrapper, to look at one value at a time. */
const canonicalValue = (value: unknown) => canonicalString({ v: value }).slice('{"v":'.length, -1);

function refused(fields: unknown): MalformedMessageError {
	try {
		canonicalString(fields as Record<string, unknown>);
	} catch (error) {
		expect(error).toBeInstanceOf(MalformedMessageError);
		return error as MalformedMessageError;
	}
	throw new Error("expected canonicalString to refuse the input");
}

describe("D3 step 3: PHP trim's character set", () => {
	it.each([
		[" x ", '"x"'],
		["\tx\t", '"x"'],
		["\nx\n", '"x"'],
		["\rx\r", '"x"'],
		["\0x\0", '"x"'],
		["\x0Bx\x0B", '"x"'],
		[" \t\n\r\0\x0B x y \x0B\0\r\n\t ", '"x y"'],
		[" \t\r\n ", '""'],
	])("trims %j", (input, expected) => {
		expect(canonicalValue(input)).toBe(expected);
	});

	it.each([
		["\u00a0x\u00a0", '"\\u00a0x\\u00a0"'],
		["\u2003x\u2003", '"\\u2003x\\u2003"'],
		["\u3000x", '"\\u3000x"'],
		["\ufeffx", '"\\ufeffx"'],
		["\u2028x\u2029", '"\\u2028x\\u2029"'],
		["\fx\f", '"\\fx\\f"'],
		["\bx", '"\\bx"'],
	])("keeps %j, which PHP's trim does not strip (JavaScript's trim would)", (input, expected) => {
		expect(canonicalValue(input)).toBe(expected);
	});

	it("keeps inner whitespace and trims at every depth, in arrays too", () => {
		expect(canonicalString({ a: { b: [" x  y ", { c: "\tz\n" }] } })).toBe('{"a":{"b":["x  y",{"c":"z"}]}}');
	});

	it("does not trim keys (PHP trims values only)", () => {
		expect(canonicalString({ " k ": " v " })).toBe('{" k ":"v"}');
	});
});

describe("D3 step 2: the top level in PHP's natural order, nested objects in their own", () => {
	it("sorts top-level keys naturally: runs of digits by value, case-sensitive bytes otherwise", () => {
		expect(canonicalString({ field10: 1, field9: 2, ab: 3, a_b: 4, aB: 5, Field: 6 })).toBe(
			'{"Field":"6","aB":"5","a_b":"4","ab":"3","field9":"2","field10":"1"}',
		);
		expect(canonicalString({ "10": 1, "9": 2, a10: 3, a2: 4, a01: 5 })).toBe(
			'{"9":"2","10":"1","a01":"5","a2":"4","a10":"3"}',
		);
	});

	it("keeps nested objects in their own order, integer-like keys included (the body's order)", () => {
		expect(canonicalString({ fees: { operate: 0, buyer: 0.32, seller: 0.3 }, a: { z: 1, "10": 2, "9": 3 } })).toBe(
			'{"a":{"9":"3","10":"2","z":"1"},"fees":{"operate":"0","buyer":"0.32","seller":"0.3"}}',
		);
	});

	it("sorts a top-level key before the same key followed by white space, as PHP's ksort does", () => {
		expect(canonicalString({ "a ": 1, b: 3, a: 2 })).toBe('{"a":"2","a ":"1","b":"3"}');
		expect(referenceFormOfText('{"x\\t":1,"x":2}')).toBe('{"x":"2","x\\t":"1"}');
	});

	it("sorts non-ASCII top-level keys in UTF-8 byte order, as PHP compares bytes", () => {
		expect(canonicalString({ "\uff01": 1, "😀": 2, é: 3, z: 4 })).toBe(
			'{"z":"4","\\u00e9":"3","\\uff01":"1","\\ud83d\\ude00":"2"}',
		);
	});

	it("keeps array order", () => {
		expect(canonicalValue([3, 1, 2, "b", "a"])).toBe('["3","1","2","b","a"]');
	});
});

describe("D3 step 3: every leaf a string, as PHP's trim() makes it", () => {
	it.each([
		[10, '"10"'],
		[10.5, '"10.5"'],
		[1.5e3, '"1500"'],
		[0, '"0"'],
		[-0, '"0"'],
		[-3.25, '"-3.25"'],
		[0.1 + 0.2, '"0.3"'],
		[1e21, '"1.0E+21"'],
		[1e20, '"1.0E+20"'],
		[1e-7, '"1.0E-7"'],
		[1.5e-7, '"1.5E-7"'],
		[0.0001, '"0.0001"'],
		[0.00001, '"1.0E-5"'],
		[5e-324, '"4.9406564584125E-324"'],
		[Number.MAX_SAFE_INTEGER + 2, '"9007199254740992"'],
		[Number.parseFloat("123456789.123456789"), '"123456789.12346"'],
		[12345678901234.5, '"12345678901234"'],
		[12345678901235.5, '"12345678901236"'],
		[Number.parseFloat("99999999999999.99"), '"1.0E+14"'],
	])("the number %s becomes %s", (input, expected) => {
		expect(canonicalValue(input)).toBe(expected);
	});

	it('leaves numeric strings alone: "10.50" stays "10.50"', () => {
		expect(canonicalValue("10.50")).toBe('"10.50"');
	});

	it('true becomes "1"; false and null become ""', () => {
		expect(canonicalString({ t: true, f: false, n: null })).toBe('{"f":"","n":"","t":"1"}');
	});

	it.each([
		[Number.NaN, "NaN"],
		[Number.POSITIVE_INFINITY, "Infinity"],
		[Number.NEGATIVE_INFINITY, "-Infinity"],
	])("refuses %s, naming the field path", (bad) => {
		const error = refused({ amount: 1, metadata: { items: [{ price: 1 }, { price: 2 }, { price: bad }] } });
		expect(error.field).toBe("metadata.items[2].price");
		expect(error.message).toContain("metadata.items[2].price");
		expect(error.message).toMatch(/finite/);
		expect(error.message).not.toMatch(/NaN|Infinity/);
	});

	it("refuses a lone surrogate, which json_encode cannot write", () => {
		const error = refused({ note: { text: "a\ud800b" } });
		expect(error.field).toBe("note.text");
		expect(error.message).toMatch(/surrogate/);
	});
});

describe("D3 step 6: escaping as PHP json_encode", () => {
	it("escapes / as \\/, and quotes and backslashes", () => {
		expect(canonicalValue('a/b "q" c\\d')).toBe('"a\\/b \\"q\\" c\\\\d"');
	});

	it("uses the short escapes for \\b \\f \\n \\r \\t inside strings", () => {
		expect(canonicalValue("a\bb\fc\nd\re\tf")).toBe('"a\\bb\\fc\\nd\\re\\tf"');
	});

	it("writes every other control character U+0000-U+001F as a lowercase \\u00XX escape", () => {
		const short = new Map([
			[8, "\\b"],
			[9, "\\t"],
			[10, "\\n"],
			[12, "\\f"],
			[13, "\\r"],
		]);
		for (let code = 0; code < 0x20; code++) {
			const expected = short.get(code) ?? `\\u${code.toString(16).padStart(4, "0")}`;
			expect(canonicalValue(`a${String.fromCharCode(code)}b`), `U+${code.toString(16)}`).toBe(`"a${expected}b"`);
		}
		expect(canonicalValue("a\u001bb")).toBe('"a\\u001bb"');
	});

	it("writes U+007F (DEL) unescaped", () => {
		expect(canonicalValue("a\u007fb")).toBe('"a\u007fb"');
	});

	it("escapes every code unit above U+007F with lowercase hex", () => {
		expect(canonicalValue("é\u0080ÿĀ\uabcd日")).toBe('"\\u00e9\\u0080\\u00ff\\u0100\\uabcd\\u65e5"');
	});

	it("writes characters outside the BMP as their two surrogate escapes, lowercase", () => {
		expect(canonicalValue("😀")).toBe('"\\ud83d\\ude00"');
		expect(canonicalValue("a𝄞b")).toBe('"a\\ud834\\udd1eb"');
	});

	it("escapes keys the same way", () => {
		expect(canonicalString({ "é/\n": 1 })).toBe('{"\\u00e9\\/\\n":"1"}');
	});
});

describe("D3 steps 1-2: what is signed", () => {
	it("drops the top-level signature only; keeps signVersion and nested signatures", () => {
		expect(canonicalString({ signature: "x", signVersion: "2.0", data: { signature: "kept" } })).toBe(
			'{"data":{"signature":"kept"},"signVersion":"2.0"}',
		);
	});

	it("drops undefined values at every depth; null signs as an empty string", () => {
		expect(canonicalString({ a: undefined, b: null, c: { d: undefined, e: null } })).toBe('{"b":"","c":{"e":""}}');
	});

	it("writes undefined inside an array as JSON.stringify does (null), so as an empty string", () => {
		expect(canonicalValue([1, undefined, 2])).toBe('["1","","2"]');
	});

	it("writes {} and objects keyed 0..n-1 in order as lists, as PHP arrays are written", () => {
		expect(canonicalString({ signature: "only" })).toBe("[]");
		expect(canonicalString({ meta: {}, list: [] })).toBe('{"list":[],"meta":[]}');
		expect(canonicalString({ m: { "0": "a", "1": "b" }, o: { "0": "a", "2": "c" }, p: { "1": "b" } })).toBe(
			'{"m":["a","b"],"o":{"0":"a","2":"c"},"p":{"1":"b"}}',
		);
		// Out of order in the text, the keys are not a list (JavaScript objects cannot hold that order).
		expect(referenceFormOfText('{"n":{"1":"b","0":"a"}}')).toBe('{"n":{"1":"b","0":"a"}}');
		// A top-level integer-like name sends the text to the text reader, which writes such objects as lists too.
		expect(referenceFormOfText('{"m":{"0":"a","1":"b"},"10":"x"}')).toBe('{"10":"x","m":["a","b"]}');
		expect(referenceFormOfText('{"1":"b","0":"a"}')).toBe('["a","b"]');
	});

	it("accepts null-prototype objects (as some parsers create)", () => {
		const fields = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: "x" });
		expect(canonicalString(fields)).toBe('{"a":"x","b":"1"}');
	});
});

describe("refusals name the field and the rule", () => {
	it.each([
		["a bigint", { order: { total: 10n } }, "order.total", /bigint/],
		["a function", { hook: () => 1 }, "hook", /function/],
		["a symbol", { s: Symbol("x") }, "s", /symbol/],
		["a Date", { when: new Date(0) }, "when", /plain objects/],
		["a Map", { list: [new Map()] }, "list[0]", /plain objects/],
		["a class instance", { box: new (class Box {})() }, "box", /plain objects/],
	])("%s", (_name, fields, field, rule) => {
		const error = refused(fields);
		expect(error.field).toBe(field);
		expect(error.message).toContain(field);
		expect(error.message).toMatch(rule);
	});

	it.each(["objects", "arrays"])(
		"refuses %s nested deeper than 64 levels, naming the path, as the text reader",
		(kind) => {
			const nest = (levels: number): unknown => {
				let value: unknown = "x";
				for (let i = 0; i < levels; i++) value = kind === "objects" ? { k: value } : [value];
				return value;
			};
			const within = { a: nest(63) };
			expect(canonicalString(within)).toBe(readTextReferenceForm(JSON.stringify(within)));
			const error = refused({ a: nest(64) });
			expect(error.message).toMatch(
				/^Cannot canonicalize a(\.k|\[0\])+: nesting deeper than 64 levels is not allowed\.$/,
			);
			expect(() => readTextReferenceForm(JSON.stringify({ a: nest(64) }))).toThrow(error.message);
		},
	);

	it.each([
		["an array", []],
		["null", null],
		["a string", "{}"],
		["a number", 1],
	])("refuses %s as the message itself", (_name, input) => {
		const error = refused(input);
		expect(error.field).toBeUndefined();
		expect(error.message).toMatch(/plain JSON object/);
	});
});

/** What a form gives, or the message of what it throws. */
function outcome<T>(form: () => T): T | { error: string } {
	try {
		return form();
	} catch (error) {
		return { error: (error as Error).message };
	}
}

/** Whether a value holds what JSON cannot carry (JSON.stringify would write it as another value). */
function holdsNonJson(value: unknown): boolean {
	if (typeof value === "number") return !Number.isFinite(value);
	if (typeof value !== "object" || value === null) return false;
	if (value instanceof Date) return true;
	return Object.values(value).some(holdsNonJson);
}

describe("a message object: the fast route and the text reader over its JSON text agree", () => {
	/** Also what JSON.stringify would read differently or the walk refuses: absent values, holes, classes. */
	const odd = fc.constantFrom(
		undefined,
		Number.NaN,
		Infinity,
		-0,
		2 ** 64,
		new Date(0),
		Object.create(null),
		Object.assign(new Array(2), { 1: 1 }),
	);
	const anyObject = fc.dictionary(awkwardKey, fc.oneof(jsonObject, awkwardString, awkwardNumber, odd), {
		maxKeys: 6,
	});

	it("on any object: the same string or the same refusal, the route the proof allows, the object left as it was", () => {
		const taken = { fast: 0, text: 0 };
		fc.assert(
			fc.property(fc.oneof(jsonObject, anyObject), (message) => {
				const before = structuredClone(message);
				const routed = outcome(() => routedObjectForm(message));
				expect(message).toEqual(before);
				if (holdsNonJson(message)) {
					expect(routed).toEqual({ error: expect.stringMatching(/^Cannot canonicalize .+: /) });
					return;
				}
				const read = outcome(() => readTextReferenceForm(JSON.stringify(message)));
				if (typeof read === "object") expect(routed).toEqual(read);
				else expect(routed).toEqual({ form: read, route: expect.stringMatching(/^(fast|text)$/) });
				if ("route" in routed) taken[routed.route]++;
			}),
			{ numRuns: 600 },
		);
		expect(taken.fast).toBeGreaterThan(150);
		expect(taken.text).toBeGreaterThan(30);
	});

	it("takes the text reader for an integer-like top-level name or a string that may hold a lone surrogate", () => {
		expect(routedObjectForm({ b: " x", a: { "1": 1, z: 2 } })).toEqual({
			form: '{"a":{"1":"1","z":"2"},"b":"x"}',
			route: "fast",
		});
		expect(routedObjectForm({ b: " x", "10": 1, "9": 2 })).toEqual({
			form: '{"9":"2","10":"1","b":"x"}',
			route: "text",
		});
		// Only a digit first makes a name integer-like: names starting with characters before "0" keep the fast route.
		for (const name of ["-1", " a", "$a", "!"]) {
			expect(routedObjectForm({ [name]: 1, b: "x" }), name).toEqual({ form: `{"${name}":"1","b":"x"}`, route: "fast" });
		}
		expect(routedObjectForm({ a: "\\ud800 is text" })).toEqual({ form: '{"a":"\\\\ud800 is text"}', route: "text" });
		expect(() => routedObjectForm({ a: ["\ud800"] })).toThrow("Cannot canonicalize a[0]: text must be well-formed");
		// The signature is left out unread, however deep.
		const signature = JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`);
		expect(routedObjectForm({ a: "1", signature })).toEqual({ form: '{"a":"1"}', route: "fast" });
	});

	it("passes none of the caller's containers to JSON.stringify: a getter is read once", () => {
		let reads = 0;
		const nested = {
			get note() {
				reads++;
				return reads === 1 ? " first " : 2;
			},
		};
		expect(canonicalString({ a: "x", nested })).toBe('{"a":"x","nested":{"note":"first"}}');
		expect(reads).toBe(1);
	});

	it("refuses an object while a prototype has a toJSON method, which JSON.stringify would call", () => {
		const message = { a: { b: [1, " c "] } };
		const expected = canonicalString(message);
		for (const prototype of [Object.prototype, Array.prototype]) {
			Object.defineProperty(prototype, "toJSON", { value: () => "polluted", configurable: true, writable: true });
			try {
				expect(() => canonicalString(message)).toThrow(
					"A message cannot be signed while Object.prototype or Array.prototype has a toJSON method: " +
						"JSON.stringify would not write it as it is.",
				);
				// A text is read as it is, whatever the prototypes hold.
				expect(referenceFormOfText('{"a":{"b":[1," c "]}}')).toBe(expected);
			} finally {
				delete (prototype as { toJSON?: unknown }).toJSON;
			}
		}
	});
});
