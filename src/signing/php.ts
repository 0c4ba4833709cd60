/**
 * The PHP behaviours that the gateway's reference signing code relies on, written once:
 * `trim()`'s character set, `json_encode()`'s string escaping, the float-to-string
 * conversion at `precision` 14, and `strnatcmp()` (what `ksort(..., SORT_NATURAL)` uses).
 */
import { isAscii } from "./encoding.js";

/** PHP `trim`'s default set: space, \t, \n, \r, \0, \x0B. Not Unicode spaces. */
function isTrimmable(unit: number): boolean {
	return unit === 0x20 || unit === 0x09 || unit === 0x0a || unit === 0x0d || unit === 0x00 || unit === 0x0b;
}

/** Trims the characters PHP's `trim` removes by default, and no others. */
export function phpTrim(value: string): string {
	let start = 0;
	let end = value.length;
	while (start < end && isTrimmable(value.charCodeAt(start))) start++;
	while (end > start && isTrimmable(value.charCodeAt(end - 1))) end--;
	return start === 0 && end === value.length ? value : value.slice(start, end);
}

function unicodeEscape(unit: number): string {
	return `\\u${unit.toString(16).padStart(4, "0")}`;
}

const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * A `JSON.stringify` text of well-formed strings as `json_encode` writes it. The two escape `"`, `\\` and
 * control characters alike; `json_encode` also escapes `/` and every code unit above U+007F (astral
 * characters as their two surrogates). `json_encode`'s string escaping is this, written once.
 */
function phpJsonFromWellFormed(json: string): string {
	// Escaped first, the text is ASCII again, and ASCII text is the faster kind to search for "/".
	const ascii = isAscii(json) ? json : json.replace(NON_ASCII, (unit) => unicodeEscape(unit.charCodeAt(0)));
	return ascii.includes("/") ? ascii.replaceAll("/", "\\/") : ascii;
}

/**
 * A `JSON.stringify` text as `json_encode` writes it. Returns `undefined` when the text has an escaped
 * lone surrogate, which `json_encode` refuses (or a string holding the characters `\\ud`, which is only
 * told apart by reading the strings themselves).
 */
export function phpJsonFromStringified(json: string): string | undefined {
	return json.includes("\\ud") ? undefined : phpJsonFromWellFormed(json);
}

/** A character `json_encode` escapes: controls, `"`, `\\`, `/` and everything above U+007F. */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\/\u0080-\uffff]/;

/**
 * A JSON string literal as PHP's `json_encode` writes it with default flags: `/` as `\/`,
 * the short escapes, other control characters and every code unit above U+007F (astral
 * characters as their two surrogates) as lowercase `\uXXXX`; DEL as is.
 * Returns `undefined` for a string that is not well-formed UTF-16 (a lone surrogate),
 * which `json_encode` refuses.
 */
export function phpJsonString(value: string): string | undefined {
	if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
	return value.isWellFormed() ? phpJsonFromWellFormed(JSON.stringify(value)) : undefined;
}

/** PHP's json_encode writes an array whose keys are exactly 0..n-1, in order, as a list (so `{}` as `[]`). */
export function isListKeys(keys: readonly string[]): boolean {
	for (let i = 0; i < keys.length; i++) if (keys[i] !== String(i)) return false;
	return true;
}

const INT64_DIGITS = "9223372036854775808";

/**
 * Whether an integer literal (`-?digits`, no leading zeros) is an integer for PHP's JSON
 * decoder: it fits a signed 64-bit integer. Larger ones become floats.
 */
function fitsInt64(literal: string): boolean {
	const negative = literal.charCodeAt(0) === 0x2d;
	const digits = negative ? literal.length - 1 : literal.length;
	if (digits !== INT64_DIGITS.length) return digits < INT64_DIGITS.length;
	// Equal-length digit strings compare as numbers.
	const magnitude = negative ? literal.slice(1) : literal;
	return magnitude < INT64_DIGITS || (magnitude === INT64_DIGITS && negative);
}

const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * What PHP makes of a JSON number literal when it turns it into a string: an integer's
 * digits, or a float at `precision` 14. `undefined` when the number is not finite.
 */
export function phpNumberString(literal: string): string | undefined {
	if (INTEGER_LITERAL.test(literal) && fitsInt64(literal)) return literal === "-0" ? "0" : literal;
	const value = Number(literal);
	return Number.isFinite(value) ? phpFloatString(value) : undefined;
}

/** The significant digits of a positive number and where its decimal point sits (0.DIGITS × 10^point). */
interface Decimal {
	digits: string;
	point: number;
}

/** Reads a `toPrecision` / `toString` result of a positive number into a Decimal, trailing zeros dropped. */
function readDecimal(text: string): Decimal {
	const e = text.indexOf("e");
	const mantissa = e < 0 ? text : text.slice(0, e);
	const dot = mantissa.indexOf(".");
	const integerPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
	const allDigits = dot < 0 ? mantissa : integerPart + mantissa.slice(dot + 1);
	let first = 0;
	while (first < allDigits.length - 1 && allDigits.charCodeAt(first) === 0x30) first++;
	let end = allDigits.length;
	while (end > first + 1 && allDigits.charCodeAt(end - 1) === 0x30) end--;
	const exponent = e < 0 ? 0 : Number(text.slice(e + 1));
	return { digits: allDigits.slice(first, end), point: integerPart.length - first + exponent };
}

const MIN_NORMAL = 2 ** -1022;

/** The exact decimal expansion of a positive finite double (every double has a finite one). */
function exactDecimal(value: number): Decimal {
	const view = new DataView(new ArrayBuffer(8));
	view.setFloat64(0, value);
	const bits = view.getBigUint64(0);
	const biasedExponent = Number((bits >> 52n) & 0x7ffn);
	const fraction = bits & 0xfffffffffffffn;
	const mantissa = biasedExponent === 0 ? fraction : fraction | (1n << 52n);
	const exponent = (biasedExponent === 0 ? 1 : biasedExponent) - 1075;
	if (exponent >= 0) return readDecimal((mantissa << BigInt(exponent)).toString());
	// mantissa / 2^k = mantissa * 5^k / 10^k
	const scaled = (mantissa * 5n ** BigInt(-exponent)).toString();
	const decimal = readDecimal(scaled);
	return { digits: decimal.digits, point: decimal.point + exponent };
}

/**
 * Rounds to `precision` significant digits, halves to even, as PHP's `zend_dtoa` mode 2 does.
 * JavaScript's `toPrecision` rounds halves up, so an exact half is settled on the exact expansion.
 */
function roundSignificant(value: number, precision: number): Decimal {
	// For a normal double, the shortest form that reads back as it lies within 2^-53 of it
	// (relative), far nearer than half a unit of the 14th digit; when that form has no more
	// digits, rounding keeps it (no tie is possible). Subnormals have less precision: no shortcut.
	if (value >= MIN_NORMAL) {
		const shortest = readDecimal(String(value));
		if (shortest.digits.length <= precision) return shortest;
	}
	const rounded = readDecimal(value.toPrecision(precision));
	const oneMore = value.toPrecision(precision + 1);
	if (!/5(?:e|$)/.test(oneMore)) return rounded;
	const exact = exactDecimal(value);
	if (exact.digits.length !== precision + 1) return rounded;
	const kept = exact.digits.slice(0, precision);
	const lastKept = kept.charCodeAt(precision - 1) - 0x30;
	return lastKept % 2 === 0 ? readDecimal(`0.${kept}e${exact.point}`) : rounded;
}

/**
 * What PHP makes of a number that `JSON.parse` read as `value`, whether PHP read its literal as an
 * integer or as a float: the two are written alike for a finite value that is not an integer, and
 * for an integer below 10^14 other than -0. `undefined` for the others, where only the literal tells
 * (`-0` and `-0.0`; `1.0e+17` and `100000000000000000`; an integer beyond 2^53, which JavaScript rounds).
 */
export function phpStringOfParsedNumber(value: number): string | undefined {
	if (Number.isInteger(value)) {
		return Math.abs(value) < 1e14 && !Object.is(value, -0) ? String(value) : undefined;
	}
	return Number.isFinite(value) ? phpFloatString(value) : undefined;
}

/**
 * What PHP makes of a finite number written by `JSON.stringify` (the shortest literal that reads back
 * as it): the same as `phpNumberString(String(value))`. `undefined` when the number is not finite.
 */
export function phpStringOfNumber(value: number): string | undefined {
	if (Number.isSafeInteger(value)) return String(value);
	if (!Number.isFinite(value)) return undefined;
	return Number.isInteger(value) ? phpNumberString(String(value)) : phpFloatString(value);
}

/**
 * PHP's float-to-string conversion at `precision` 14 (`php_gcvt`): at most 14 significant
 * digits, trailing zeros dropped, exponent form `1.0E+25` / `1.5E-7` when the decimal
 * point lies more than 14 places right or more than 3 places left of the first digit.
 */
export function phpFloatString(value: number): string {
	if (value === 0) return Object.is(value, -0) ? "-0" : "0";
	const magnitude = Math.abs(value);
	if (magnitude >= 1e-4 && magnitude < 1e14) {
		// JavaScript writes this range in plain decimals too, with the fewest digits that read back as the
		// value: at most 15 characters (a point or a sign among them) is at most 14 digits, which rounding to
		// 14 digits keeps, and PHP's plain form then has the same characters.
		const shortest = String(value);
		if (shortest.length <= 15) return shortest;
	}
	const sign = value < 0 ? "-" : "";
	const { digits, point } = roundSignificant(magnitude, 14);
	if (point < -3 || point > 14) {
		const exponent = point - 1;
		const mantissa = `${digits[0]}.${digits.length > 1 ? digits.slice(1) : "0"}`;
		return `${sign}${mantissa}E${exponent < 0 ? "-" : "+"}${Math.abs(exponent)}`;
	}
	if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
	if (digits.length <= point) return sign + digits + "0".repeat(point - digits.length);
	return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

function isDigit(unit: number): boolean {
	return unit >= 0x30 && unit <= 0x39;
}

/** C's `isspace` in the C locale: space, \t, \n, \v, \f, \r. */
function isSpace(unit: number): boolean {
	return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
}

/** ASCII that the natural order compares as is: neither a digit nor a space. */
function isPlainAscii(unit: number): boolean {
	return unit < 0x80 && !isDigit(unit) && !isSpace(unit);
}

/** The code unit at `index`, or 0 past the end (C strings end in NUL). NaN never escapes. */
function unitAt(text: string, index: number): number {
	return index < text.length ? text.charCodeAt(index) : 0;
}

/**
 * Orders two code units in code point order, which is UTF-8 byte order: PHP compares bytes,
 * and surrogates (astral characters) must sort after U+E000-U+FFFF.
 */
function compareUnits(a: number, b: number): number {
	if (a >= 0xd800 && b >= 0xd800) {
		a = a <= 0xdfff ? a + 0x2000 : a - 0x800;
		b = b <= 0xdfff ? b + 0x2000 : b - 0x800;
	}
	return a < b ? -1 : a > b ? 1 : 0;
}

/** Where two digit runs end, and how they compared. */
interface RunComparison {
	result: number;
	endA: number;
	endB: number;
}

/**
 * Compares the digit runs at `i` and `j`. Runs starting with 0 compare digit by digit, left
 * aligned (`01` < `1`); others as integers (the longer run wins, else the first difference).
 */
function compareDigitRuns(a: string, i: number, b: string, j: number): RunComparison {
	const leftAligned = a.charCodeAt(i) === 0x30 || b.charCodeAt(j) === 0x30;
	let bias = 0;
	for (; ; i++, j++) {
		const aDigit = isDigit(unitAt(a, i));
		const bDigit = isDigit(unitAt(b, j));
		if (!aDigit && !bDigit) return { result: bias, endA: i, endB: j };
		if (!aDigit) return { result: -1, endA: i, endB: j };
		if (!bDigit) return { result: 1, endA: i, endB: j };
		const difference = a.charCodeAt(i) - b.charCodeAt(j);
		if (difference !== 0) {
			if (leftAligned) return { result: Math.sign(difference), endA: i, endB: j };
			if (bias === 0) bias = Math.sign(difference);
		}
	}
}

/**
 * PHP 8's `strnatcmp`: case-sensitive byte order, except that runs of digits compare by
 * value (`a2` < `a10`), leading zeros of the whole string are skipped, whitespace is
 * skipped, and a run starting with 0 compares digit by digit (`a01` < `a1`).
 */
export function naturalCompare(a: string, b: string): number {
	if (a.length === 0 || b.length === 0) return Math.sign(a.length - b.length);
	// Most keys differ in their first character, where no digit, space or surrogate rule applies.
	const first = a.charCodeAt(0);
	const other = b.charCodeAt(0);
	if (first !== other && isPlainAscii(first) && isPlainAscii(other)) return first < other ? -1 : 1;
	let i = 0;
	let j = 0;
	while (unitAt(a, i) === 0x30 && isDigit(unitAt(a, i + 1))) i++;
	while (unitAt(b, j) === 0x30 && isDigit(unitAt(b, j + 1))) j++;
	for (;;) {
		// Equal characters that no rule treats specially compare equal: step over them together.
		const from = i;
		while (i < a.length && a.charCodeAt(i) === b.charCodeAt(j) && isPlainAscii(a.charCodeAt(i))) {
			i++;
			j++;
		}
		// As after any equal pair, an end is checked before white space is skipped ("a" < "a ").
		if (i > from) {
			if (i >= a.length && j >= b.length) return 0;
			if (i >= a.length) return -1;
			if (j >= b.length) return 1;
		}
		while (isSpace(unitAt(a, i))) i++;
		while (isSpace(unitAt(b, j))) j++;
		let ca = unitAt(a, i);
		let cb = unitAt(b, j);
		if (isDigit(ca) && isDigit(cb)) {
			const run = compareDigitRuns(a, i, b, j);
			if (run.result !== 0) return run.result;
			i = run.endA;
			j = run.endB;
			if (i >= a.length && j >= b.length) return 0;
			if (i >= a.length) return -1;
			if (j >= b.length) return 1;
			ca = a.charCodeAt(i);
			cb = b.charCodeAt(j);
		}
		const order = compareUnits(ca, cb);
		if (order !== 0) return order;
		i++;
		j++;
		if (i >= a.length && j >= b.length) return 0;
		if (i >= a.length) return -1;
		if (j >= b.length) return 1;
	}
}

/** Characters after which the natural order is no longer plain byte order: digits, white space, non-ASCII. */
const NATURAL_ORDER_RULES = /[^\x21-\x2f\x3a-\x7e]/;

/**
 * Sorts `keys` in place as `ksort($array, SORT_NATURAL)` orders them: by `strnatcmp`, keeping the
 * order of keys that compare equal (PHP 8's sort is stable, and so is JavaScript's).
 */
export function phpNaturalSort(keys: string[]): string[] {
	// Keys of only printable ASCII without digits compare byte by byte, which is the default sort's
	// order too, and that sort does not call back into JavaScript for every comparison.
	return NATURAL_ORDER_RULES.test(keys.join("")) ? keys.sort(naturalCompare) : keys.sort();
}
