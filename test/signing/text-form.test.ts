import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedMessageError } from "../../src/index.js";
import { canonicalString } from "../../src/signing/canonical.js";
import { referenceFormOfText, textReferenceForm, wrappedTextReferenceForm } from "../../src/signing/text-form.js";

/** The one-pass writer reads what JSON.parse accepted; these pin what it adds: order, literals, refusals. */
describe("the reference form written from JSON text", () => {
	it("equals the object serializer wherever JSON.parse keeps order and literals (what JSON.stringify wrote)", () => {
		fc.assert(
			fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), (message) => {
				const text = JSON.stringify(message);
				let expected: string | Error;
				try {
					expected = canonicalString(JSON.parse(text));
				} catch (error) {
					expected = error as Error;
				}
				if (expected instanceof Error) expect(() => referenceFormOfText(text)).toThrow(expected.message);
				else expect(referenceFormOfText(text)).toBe(expected);
			}),
			{ numRuns: 500 },
		);
	});

	it("keeps the text's nested order and number literals, whatever the white space", () => {
		const text = ' {\n "z" : { "10" : 1.0e+17 , "9" : 12345678901234567 , "a" : -0.0 } ,\t"a" : [ ] , "b" : { } }';
		expect(referenceFormOfText(text)).toBe('{"a":[],"b":[],"z":{"10":"1.0E+17","9":"12345678901234567","a":"-0"}}');
	});

	it("decodes escaped member names and writes them as json_encode does", () => {
		expect(referenceFormOfText('{"k\\u0065y\\/":"\\u00e9 x\\"y\\\\"}')).toBe('{"key\\/":"\\u00e9 x\\"y\\\\"}');
	});

	it("trims the parsed strings in place, at every depth, and leaves the signature alone", () => {
		const text = '{"a":" x ","n":{"b":["\\t y"]},"signature":" s "}';
		const parsed = JSON.parse(text);
		expect(textReferenceForm(text, parsed)).toBe('{"a":"x","n":{"b":["y"]}}');
		expect(parsed).toEqual({ a: "x", n: { b: ["y"] }, signature: " s " });
	});

	it("signs a wrapped response's data, skipping the unsigned wrapper", () => {
		const text = '{"status":" ok ","message":null,"data":{"z":"1","a":" 2","signature":"s"}}';
		const parsed = JSON.parse(text);
		expect(wrappedTextReferenceForm(text, parsed)).toBe('{"a":"2","z":"1"}');
		expect(parsed.status).toBe(" ok ");
	});

	it.each([
		['{"a":1,"a":2}', /duplicate member name at position 0/],
		['{"n":{"a":1,"b":2,"a":3}}', /duplicate member name at position 5 \(in n\)/],
		['{"data":{"a":1},"data":{"a":1}}', /duplicate member name/],
		[`{"a":${"[".repeat(64)}${"]".repeat(64)}}`, /a(\[0\])+: nesting deeper than 64 levels/],
		['{"a":"\\ud800"}', /Cannot canonicalize a: text must be well-formed Unicode/],
		['{"a":1e999}', /Cannot canonicalize a: numbers must be finite/],
	])("refuses %j with a typed error naming the rule", (text, rule) => {
		const wrapped = text.startsWith('{"data"');
		expect(() => referenceFormOfText(text, wrapped)).toThrow(MalformedMessageError);
		expect(() => referenceFormOfText(text, wrapped)).toThrow(rule);
	});

	it("reads a __proto__ member as the data it is", () => {
		const text = '{"__proto__":{" x":" y "},"a":"1"}';
		const parsed = JSON.parse(text);
		expect(textReferenceForm(text, parsed)).toBe('{"__proto__":{" x":"y"},"a":"1"}');
		expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
	});
});
