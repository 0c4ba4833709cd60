import { describe, expect, it } from "vitest";
import {
	isListKeys,
	naturalCompare,
	phpFloatString,
	phpJsonFromStringified,
	phpJsonString,
	phpNaturalSort,
	phpNumberString,
	phpStringOfNumber,
	phpStringOfParsedNumber,
	phpTrim,
} from "../../src/signing/php.js";

// The expected values are PHP 8's own answers (`trim`, `json_encode`, `(string)` of `json_decode` at
// precision 14, `strnatcmp`), so each table is a known-answer test of one PHP behaviour.

describe("PHP trim", () => {
	it.each([
		[" x", "x"],
		["x\t", "x"],
		["\0\x0Bx", "x"],
		["x\r\n", "x"],
		[" ", ""],
		["x", "x"],
		["", ""],
	])("trims %j from either end alone to %j", (input, expected) => {
		expect(phpTrim(input)).toBe(expected);
	});
});

describe("PHP json_encode of a string", () => {
	it.each([
		["plain", '"plain"'],
		["a/b", '"a\\/b"'],
		['q"b\\', '"q\\"b\\\\"'],
		["\u0001\n", '"\\u0001\\n"'],
		["\u007f", '"\u007f"'],
		["é", '"\\u00e9"'],
		["😀", '"\\ud83d\\ude00"'],
	])("writes %j as %s", (input, expected) => {
		expect(phpJsonString(input)).toBe(expected);
	});

	it("refuses a lone surrogate, which json_encode cannot write", () => {
		expect(phpJsonString("a\ud800")).toBeUndefined();
		expect(phpJsonFromStringified(JSON.stringify({ a: "\udc00" }))).toBeUndefined();
	});

	it("turns a JSON.stringify text into json_encode's: / and non-ASCII escaped", () => {
		expect(phpJsonFromStringified(JSON.stringify({ "a/é": ["x/y", "😀"] }))).toBe(
			'{"a\\/\\u00e9":["x\\/y","\\ud83d\\ude00"]}',
		);
	});
});

describe("PHP writes an array keyed 0..n-1 as a list", () => {
	it.each([
		[[], true],
		[["0"], true],
		[["0", "1", "2"], true],
		[["1"], false],
		[["0", "2"], false],
		[["1", "0"], false],
		[["00"], false],
	])("keys %j: %s", (keys, list) => {
		expect(isListKeys(keys)).toBe(list);
	});
});

describe("PHP's string of a JSON number literal (json_decode, then precision 14)", () => {
	it.each([
		["9223372036854775807", "9223372036854775807"],
		["-9223372036854775808", "-9223372036854775808"],
		["123456789012345678", "123456789012345678"],
		["9223372036854775808", "9.2233720368548E+18"],
		["-9223372036854775809", "-9.2233720368548E+18"],
		["9999999999999999999", "1.0E+19"],
		["100000000000000000000", "1.0E+20"],
		["-0", "0"],
		["-0.0", "-0"],
		["1.0", "1"],
		["1e15", "1.0E+15"],
		["1.5e15", "1.5E+15"],
		["-1e15", "-1.0E+15"],
		["1e14", "1.0E+14"],
		["1e-4", "0.0001"],
		["-1.5e-7", "-1.5E-7"],
		["1234567890123.25", "1234567890123.2"],
		["1234567890123.75", "1234567890123.8"],
		["-123456789.123456789", "-123456789.12346"],
		["0.000123456789012345678", "0.00012345678901235"],
		["0.00099999999999999999", "0.001"],
		["12345678901234.567", "12345678901235"],
		["12345678901230.001", "12345678901230"],
		["0.100000000000005", "0.10000000000001"],
		["1.00000000000005", "1"],
		["123456789012347.0", "1.2345678901235E+14"],
		["12345678901234500.0", "1.2345678901234E+16"],
		["5234567890123450.0", "5.2345678901234E+15"],
	])("%s becomes %s", (literal, expected) => {
		expect(phpNumberString(literal)).toBe(expected);
	});

	it("has no string for a literal beyond a double's range (PHP's INF cannot be signed)", () => {
		expect(phpNumberString("1e400")).toBeUndefined();
		expect(phpNumberString("-1e400")).toBeUndefined();
	});

	it("writes a float that ties at the 14th digit to even, as PHP does, where JavaScript rounds up", () => {
		expect(phpFloatString(1234567890123.25)).toBe("1234567890123.2");
		expect(phpFloatString(-1234567890123.25)).toBe("-1234567890123.2");
		expect(phpFloatString(0)).toBe("0");
		expect(phpFloatString(-0)).toBe("-0");
	});
});

describe("a number JSON.parse or the caller holds, written as PHP would", () => {
	it("from a parsed text: decided by the value, except where only the literal tells", () => {
		expect(phpStringOfParsedNumber(1.5)).toBe("1.5");
		expect(phpStringOfParsedNumber(-42)).toBe("-42");
		expect(phpStringOfParsedNumber(99999999999999)).toBe("99999999999999");
		expect(phpStringOfParsedNumber(-99999999999999)).toBe("-99999999999999");
		// 1e14 may have been 100000000000000 (an integer) or 1e14 (a float): only the literal tells.
		expect(phpStringOfParsedNumber(1e14)).toBeUndefined();
		expect(phpStringOfParsedNumber(-1e14)).toBeUndefined();
		expect(phpStringOfParsedNumber(-0)).toBeUndefined();
		expect(phpStringOfParsedNumber(Number.NaN)).toBeUndefined();
		expect(phpStringOfParsedNumber(Number.POSITIVE_INFINITY)).toBeUndefined();
	});

	it("from a caller's object: as JSON.stringify writes it, then read by PHP", () => {
		expect(phpStringOfNumber(-0)).toBe("0");
		// JSON.stringify writes 2^60 as 1152921504606847000, an integer literal PHP reads as such.
		expect(phpStringOfNumber(2 ** 60)).toBe("1152921504606847000");
		expect(phpStringOfNumber(1e19)).toBe("1.0E+19");
		expect(phpStringOfNumber(1e21)).toBe("1.0E+21");
		expect(phpStringOfNumber(0.5)).toBe("0.5");
		expect(phpStringOfNumber(Number.NaN)).toBeUndefined();
		expect(phpStringOfNumber(Number.NEGATIVE_INFINITY)).toBeUndefined();
	});
});

describe("PHP 8's strnatcmp", () => {
	it.each([
		["a", "a1", -1],
		["a01", "a1", -1],
		["a 1", "a1", 0],
		["a  2", "a 10", -1],
		["007", "7", 0],
		["08", "8", 0],
		["x9", "x10", -1],
		["", " ", -1],
		["0", "00", 0],
		["a0b", "a00b", -1],
		["1a", "01a", 0],
		["ab c", "abc", 0],
		["a1b", "a1c", -1],
		["a10b", "a10", 1],
		["a2", "a2", 0],
		["\ue000", "😀", -1],
		["\uffff", "😀", -1],
		["😀", "😁", -1],
		["x 1 ", "x 1", 1],
		[" a", "a", 0],
		["a12", "a012", 1],
		["a0012", "a012", -1],
		["a1z", "a01z", 1],
		["12", "012", 0],
		["0", "a", -1],
		["A", "a", -1],
		["z1", "z", 1],
		["abc", "abd", -1],
		["a5b", "a5 b", 1],
		["10", "9", 1],
		["1.5", "1.10", -1],
		["a_1", "a-1", 1],
		["b1", "a1", 1],
		["0 1", "01", -1],
		["a 0", "a0", 0],
		// A string that ends where the other goes on with white space only is the smaller one.
		["a", "a ", -1],
		["x", "x\t", -1],
		["a", "a  ", -1],
		["1", "1 ", -1],
		["é", "é ", -1],
		// White space is C's isspace: \t \n \v \f \r and the space, skipped; \b and \x0E are not.
		["a\t1", "a1", 0],
		["a\r1", "a1", 0],
		["a\f1", "a1", 0],
		[" a", "\ta", 0],
		[" ab", "ab", 0],
		["a ", "a b", -1],
		["x a", "x\ta", 0],
		["a\b1", "a1", -1],
		["a\x0e1", "a1", -1],
		// Code point order beyond the BMP, and runs compared as integers, first difference first.
		["\uc000", "\ue000", -1],
		["\ue000", "\u{10000}", -1],
		["\u{10000}", "\u{103ff}", -1],
		["éa", "éb", -1],
		["a19", "a28", -1],
	])("compares %j with %j as %i, and the other way round as its opposite", (a, b, expected) => {
		expect(naturalCompare(a, b)).toBe(expected);
		expect(naturalCompare(b, a)).toBe(-expected || 0);
	});

	it("ksort SORT_NATURAL order: digits by value, spaces skipped, equal keys kept in place", () => {
		expect(phpNaturalSort(["b", "a", "C"])).toEqual(["C", "a", "b"]);
		expect(phpNaturalSort(["x10", "x9", "x 1", "x1", "é", "z"])).toEqual(["x 1", "x1", "x9", "x10", "z", "é"]);
		expect(phpNaturalSort(["a ", "b", "a"])).toEqual(["a", "a ", "b"]);
		expect(phpNaturalSort(["x\t", "x"])).toEqual(["x", "x\t"]);
	});
});
