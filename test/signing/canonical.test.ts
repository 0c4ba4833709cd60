import { describe, expect, it } from "vitest";
import { canonicalString, MalformedMessageError } from "../../src/index.js";

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

describe("D3 step 4: PHP trim's character set", () => {
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

describe("D3 step 3: key order by UTF-16 code unit", () => {
	it('sorts integer-like keys as strings: "10" before "9", at every depth', () => {
		expect(canonicalString({ "9": 1, "10": 2, "100": 3, "1": 4, a: { "9": "x", "10": "y" } })).toBe(
			'{"1":"4","10":"2","100":"3","9":"1","a":{"10":"y","9":"x"}}',
		);
	});

	it("puts upper case before lower case, and punctuation by its code", () => {
		expect(canonicalString({ b: 1, a_b: 2, ab: 3, B: 4, "a-b": 5, a: 6, "": 7 })).toBe('{"":"7","B":"4","a":"6","a-b":"5","a_b":"2","ab":"3","b":"1"}');
	});

	it("orders non-ASCII keys by UTF-16 code unit (an astral key sorts before U+FF01, unlike UTF-8 byte order)", () => {
		expect(canonicalString({ "\uff01": 1, "😀": 2, é: 3, z: 4 })).toBe('{"z":"4","\\u00e9":"3","\\ud83d\\ude00":"2","\\uff01":"1"}');
	});

	it("keeps array order", () => {
		expect(canonicalValue([3, 1, 2, "b", "a"])).toBe('["3","1","2","b","a"]');
	});
});

describe("D3 step 5: numbers", () => {
	it.each([
		[10, '"10"'],
		[10.5, '"10.5"'],
		[1.5e3, '"1500"'],
		[0, '"0"'],
		[-0, '"0"'],
		[-3.25, '"-3.25"'],
		[0.1 + 0.2, '"0.30000000000000004"'],
		[1e21, '"1e+21"'],
		[1e20, '"100000000000000000000"'],
		[1e-7, '"1e-7"'],
		[0.000001, '"0.000001"'],
		[5e-324, '"5e-324"'],
		[Number.MAX_SAFE_INTEGER + 2, '"9007199254740992"'],
		[Number.parseFloat("123456789.123456789"), '"123456789.12345679"'],
	])("%s becomes %s", (input, expected) => {
		expect(canonicalValue(input)).toBe(expected);
	});

	it('leaves numeric strings alone: "10.50" stays "10.50"', () => {
		expect(canonicalValue("10.50")).toBe('"10.50"');
	});

	it("booleans and null stay JSON literals", () => {
		expect(canonicalString({ t: true, f: false, n: null })).toBe('{"f":false,"n":null,"t":true}');
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
		expect(canonicalString({ signature: "x", signVersion: "2.0", data: { signature: "kept" } })).toBe('{"data":{"signature":"kept"},"signVersion":"2.0"}');
	});

	it("drops undefined values at every depth and keeps null", () => {
		expect(canonicalString({ a: undefined, b: null, c: { d: undefined, e: null } })).toBe('{"b":null,"c":{"e":null}}');
	});

	it("writes undefined inside an array as null, as JSON.stringify does (an array has no absent slots in PHP)", () => {
		expect(canonicalValue([1, undefined, 2])).toBe('["1",null,"2"]');
	});

	it("writes an empty object as {} and an empty array as [] (literal D3; PHP would print [] for both after json_decode(..., true))", () => {
		expect(canonicalString({})).toBe("{}");
		expect(canonicalString({ signature: "only" })).toBe("{}");
		expect(canonicalString({ meta: {}, list: [] })).toBe('{"list":[],"meta":{}}');
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
