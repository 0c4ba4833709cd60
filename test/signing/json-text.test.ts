import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedMessageError } from "../../src/index.js";
import { parseJsonText, TextNumber, TextObject, type TextValue } from "../../src/signing/json-text.js";

/** The tree as JavaScript values, the way JSON.parse would build them (independent of the SDK's own conversion). */
function plain(value: TextValue): unknown {
	if (value instanceof TextNumber) return Number(value.literal);
	if (Array.isArray(value)) return value.map(plain);
	if (value instanceof TextObject) {
		const out: Record<string, unknown> = {};
		value.keys.forEach((key, i) => {
			Object.defineProperty(out, key, { value: plain(value.values[i] as TextValue), enumerable: true });
		});
		return out;
	}
	return value;
}

/** Whether a parser accepted the text; the SDK's parser may only refuse with its typed error. */
function outcome(parse: () => unknown, typed: boolean): "accepted" | "refused" {
	try {
		parse();
		return "accepted";
	} catch (error) {
		if (typed) expect(error).toBeInstanceOf(MalformedMessageError);
		return "refused";
	}
}

describe("parseJsonText: JSON.parse's language, with the text's own order and number literals", () => {
	it("reads what JSON.stringify writes to the same values", () => {
		fc.assert(
			fc.property(fc.jsonValue(), (value) => {
				const text = JSON.stringify(value);
				expect(plain(parseJsonText(text, "text"))).toEqual(JSON.parse(text));
			}),
			{ numRuns: 500 },
		);
	});

	it("keeps member order and literals that JSON.parse loses", () => {
		const tree = parseJsonText('{"b":{"10":1.0e+17,"9":12345678901234567,"a":-0.0}}') as TextObject;
		const nested = tree.values[0] as TextObject;
		expect(nested.keys).toEqual(["10", "9", "a"]);
		expect(nested.values.map((value) => (value as TextNumber).literal)).toEqual([
			"1.0e+17",
			"12345678901234567",
			"-0.0",
		]);
	});

	it("accepts and refuses exactly what JSON.parse does, for texts one edit away from valid JSON", () => {
		const edited = fc
			.tuple(
				fc.jsonValue({ maxDepth: 3 }),
				fc.nat(),
				fc.constantFrom("delete", "insert", "replace"),
				fc.string({ minLength: 1, maxLength: 1 }),
			)
			.map(([value, at, edit, character]) => {
				const text = JSON.stringify(value);
				const i = text.length === 0 ? 0 : at % text.length;
				if (edit === "delete") return text.slice(0, i) + text.slice(i + 1);
				if (edit === "insert") return text.slice(0, i) + character + text.slice(i);
				return text.slice(0, i) + character + text.slice(i + 1);
			});
		fc.assert(
			fc.property(edited, (text) => {
				const expected = outcome(() => JSON.parse(text), false);
				const ours = outcome(() => parseJsonText(text, "text"), true);
				// Duplicate member names are the one place the SDK is stricter than JSON.parse.
				if (expected === "accepted" && ours === "refused")
					expect(() => parseJsonText(text)).toThrow(/duplicate member name/);
				else expect(ours, text).toBe(expected);
			}),
			{ numRuns: 3000 },
		);
	});

	it.each([
		['{"a":1,"a":2}', /duplicate member name at position/],
		[`{${Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(",")},"k5":1}`, /duplicate member name/],
		["[".repeat(65) + "]".repeat(65), /nesting deeper than 64 levels/],
		['{"a":01}', /not valid JSON/],
		['{"a":"\u0001"}', /control character/],
		['{"a":"\\x"}', /bad escape/],
		['{"a":tru}', /unexpected character/],
		['{"a":1', /expected ',' or '}'/],
	])("refuses %j with a typed error naming the rule and position", (text, rule) => {
		expect(() => parseJsonText(text, "IPN body")).toThrow(MalformedMessageError);
		expect(() => parseJsonText(text, "IPN body")).toThrow(rule);
	});

	it("is not stack-bound: 20,000 nested brackets are refused, not a crash", () => {
		expect(() => parseJsonText("[".repeat(20_000))).toThrow(MalformedMessageError);
		expect(() => parseJsonText('{"a":'.repeat(20_000))).toThrow(MalformedMessageError);
	});
});
