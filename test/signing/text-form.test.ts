import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedMessageError } from "../../src/index.js";
import { canonicalString, referenceFormOfText, routedTextForm } from "../../src/signing/canonical.js";
import { fastTextForm, memberNameCount } from "../../src/signing/fast-form.js";
import { readTextReferenceForm } from "../../src/signing/text-form.js";

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
		const text = ' {\n "z" : { "10" : 1.0e+17 , "9" : 12345678901234567 , "a" : -0.0 } ,\t"a" :\r[ ] , "b"\r: { } }';
		expect(referenceFormOfText(text)).toBe('{"a":[],"b":[],"z":{"10":"1.0E+17","9":"12345678901234567","a":"-0"}}');
	});

	it("decodes escaped member names and writes them as json_encode does", () => {
		expect(referenceFormOfText('{"k\\u0065y\\/":"\\u00e9 x\\"y\\\\"}')).toBe('{"key\\/":"\\u00e9 x\\"y\\\\"}');
	});

	it("trims the parsed strings in place, at every depth, and leaves the signature alone", () => {
		const text = '{"a":" x ","n":{"b":["\\t y"]},"signature":" s "}';
		const parsed = JSON.parse(text);
		expect(routedTextForm(text, parsed).form).toBe('{"a":"x","n":{"b":["y"]}}');
		expect(parsed).toEqual({ a: "x", n: { b: ["y"] }, signature: " s " });
	});

	it("signs a wrapped response's data, skipping the unsigned wrapper", () => {
		const text = '{"status":" ok ","message":null,"data":{"z":"1","a":" 2","signature":"s"}}';
		const parsed = JSON.parse(text);
		expect(routedTextForm(text, parsed, true).form).toBe('{"a":"2","z":"1"}');
		expect(parsed.status).toBe(" ok ");
	});

	it.each([
		['{"a":1,"a":2}', /duplicate member name at position 0/],
		['{"n":{"a":1,"b":2,"a":3}}', /duplicate member name at position 5 \(in n\)/],
		['{"data":{"a":1},"data":{"a":1}}', /duplicate member name/],
		// A repeated name whose kept value is of another type than the text's first one, at any depth.
		['{"a":"x","a":[0]}', /duplicate member name at position 0\./],
		['{"a":["x"],"a":[1]}', /duplicate member name at position 0\./],
		['{"a":{"b":" x"},"a":1}', /duplicate member name at position 0\./],
		['{"o":{"a":[{"b":"x"}],"a":{}}}', /duplicate member name at position 5 \(in o\)/],
		['{"a":{"b":"x"},"a":[1,2]}', /duplicate member name at position 0\./],
		['{"o":{"l":[{"a":1,"a":2}]}}', /duplicate member name at position 11 \(in o\.l\.0\)/],
		['{"data":{"a":1},"data":null}', /duplicate member name/],
		['{"data":{"a":"x"},"data":{"a":[]}}', /duplicate member name/],
		[`{"a":${"[".repeat(64)}${"]".repeat(64)}}`, /a(\[0\])+: nesting deeper than 64 levels/],
		['{"a":"\\ud800"}', /Cannot canonicalize a: text must be well-formed Unicode/],
		['{"a":1e999}', /Cannot canonicalize a: numbers must be finite/],
	])("refuses %j with a typed error naming the rule", (text, rule) => {
		const wrapped = text.startsWith('{"data"');
		expect(() => referenceFormOfText(text, wrapped)).toThrow(MalformedMessageError);
		expect(() => referenceFormOfText(text, wrapped)).toThrow(rule);
	});

	it("refuses a wrapped response without a data object, naming data", () => {
		for (const text of ['{"status":"ok","message":null}', '{"status":"ok","data":"x"}', '{"data":[]}']) {
			const error = (() => {
				try {
					referenceFormOfText(text, true);
				} catch (caught) {
					return caught as MalformedMessageError;
				}
			})();
			expect(error, text).toBeInstanceOf(MalformedMessageError);
			expect(error?.message).toBe("A wrapped response must have a data object.");
			expect(error?.field).toBe("data");
		}
	});

	it("skips the signature and a wrapper's other members whatever they hold, with or without the parsed object", () => {
		const flat = '{"a":" 1","signature":{"k":["v",{"j":[1]}],"m":{}},"b":"2"}';
		expect(readTextReferenceForm(flat)).toBe('{"a":"1","b":"2"}');
		expect(readTextReferenceForm(flat, JSON.parse(flat))).toBe('{"a":"1","b":"2"}');
		const wrapped = '{"status":{"code":1,"at":[{"x":[2]}]},"data":{"a":" 1","signature":[{"s":"x"}]},"more":[{}]}';
		expect(readTextReferenceForm(wrapped, undefined, true)).toBe('{"a":"1"}');
		expect(readTextReferenceForm(wrapped, JSON.parse(wrapped), true)).toBe('{"a":"1"}');
		// data first, white space around names and colons, strings holding delimiters, an object after data.
		const spaced =
			'{"data" :\n{"b":" 1","a":2}, \n"message" : "done, }]{[ \\"x\\"",\t"meta":{"note":"}]{[","list":["]"]}}';
		expect(readTextReferenceForm(spaced, undefined, true)).toBe('{"a":"2","b":"1"}');
		expect(readTextReferenceForm(spaced, JSON.parse(spaced), true)).toBe('{"a":"2","b":"1"}');
		const quoted = '{"signature":{"k":"}]{[","l":["]",{"m":"{"}]},"a":"1"}';
		expect(readTextReferenceForm(quoted)).toBe('{"a":"1"}');
	});

	it("reads a __proto__ member as the data it is", () => {
		const text = '{"__proto__":{" x":" y "},"a":"1"}';
		const parsed = JSON.parse(text);
		expect(routedTextForm(text, parsed).form).toBe('{"__proto__":{" x":"y"},"a":"1"}');
		expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
	});
});

/** Any JSON text with padded strings, as a sender may write it (white space included). */
const paddedText = fc
	.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }))
	.chain((message) =>
		fc
			.constantFrom(0, 1)
			.map((indent) =>
				JSON.stringify(message, (_key, value) => (typeof value === "string" ? ` ${value}\t` : value), indent),
			),
	);

describe("the fast route from a parsed text (fast-form.ts)", () => {
	it("writes what the text reader writes whenever it applies, and trims the parsed object alike", () => {
		let applied = 0;
		fc.assert(
			fc.property(paddedText, (text) => {
				const parsed = JSON.parse(text);
				const form = fastTextForm(text, parsed, false);
				if (form === undefined) return;
				applied++;
				const read = JSON.parse(text);
				expect(form).toBe(readTextReferenceForm(text, read));
				expect(parsed).toEqual(read);
			}),
			{ numRuns: 500 },
		);
		expect(applied).toBeGreaterThan(80);
	});

	it("counts member names, not strings, whatever the white space and escapes", () => {
		const text = JSON.stringify({ a: "b:c", d: { 'e\\"': ["f", 'g\\":'] }, h: {} }, null, 1);
		expect(memberNameCount(text)).toBe(4);
		expect(memberNameCount("[]")).toBe(0);
		expect(memberNameCount('{"a" :1,"b"\n:{"c"\r:[],"d"\t:2}}')).toBe(4);
	});

	it("leaves a text with a repeated member name, at any depth, to the text reader", () => {
		for (const text of ['{"a":1,"a":1}', '{"o":{"a":1,"b":{},"a":1}}', '{"l":[{"a":[],"a":[]}]}']) {
			expect(fastTextForm(text, JSON.parse(text), false), text).toBeUndefined();
		}
		const wrapped = '{"status":"ok","status":"ok","data":{"a":"1","signature":"s"}}';
		expect(
			routedTextForm(
				'{"status":"ok","data":{"a":" 1","signature":"s"}}',
				{
					status: "ok",
					data: { a: " 1", signature: "s" },
				},
				true,
			).form,
		).toBe('{"a":"1"}');
		expect(fastTextForm(wrapped, JSON.parse(wrapped), true)).toBeUndefined();
		expect(() => routedTextForm(wrapped, JSON.parse(wrapped), true)).toThrow(/duplicate member name/);
	});

	it("leaves an unsigned value nested past the limit to the text reader, which skips it without recursion", () => {
		const deep = `${"[".repeat(100_000)}"s"${"]".repeat(100_000)}`;
		const deepObject = `${'{"k":'.repeat(100_000)}"s"${"}".repeat(100_000)}`;
		for (const signature of [deep, `{"k":${deep}}`, deepObject]) {
			const flat = `{"a":" 1","signature":${signature}}`;
			expect(fastTextForm(flat, JSON.parse(flat), false)).toBeUndefined();
			expect(referenceFormOfText(flat)).toBe('{"a":"1"}');
		}
		const wrapped = `{"status":${deep},"data":{"a":" 1","signature":"s"}}`;
		expect(referenceFormOfText(wrapped, true)).toBe('{"a":"1"}');
	});

	it("takes a number only where its value decides PHP's string; -0.0, 1.0e+17 and 10^20 go to the text reader", () => {
		expect(
			routedTextForm('{"a":1.5,"b":-2,"c":99999999999999}', JSON.parse('{"a":1.5,"b":-2,"c":99999999999999}')),
		).toEqual({ form: '{"a":"1.5","b":"-2","c":"99999999999999"}', route: "fast" });
		for (const [literal, written] of [
			["-0.0", "-0"],
			["-0", "0"],
			["1.0e+17", "1.0E+17"],
			["100000000000000000000", "1.0E+20"],
			["100000000000000", "100000000000000"],
		]) {
			const text = `{"a":{"n":${literal}}}`;
			expect(routedTextForm(text, JSON.parse(text)), literal).toEqual({
				form: `{"a":{"n":"${written}"}}`,
				route: "text",
			});
		}
	});

	it("counts the names inside an object signature or an unsigned wrapper member, and keeps the fast route", () => {
		const flat = '{"a":" 1","signature":{"k":["v",{"j":1}],"m":{}}}';
		expect(fastTextForm(flat, JSON.parse(flat), false)).toBe('{"a":"1"}');
		const wrapped = '{"status":{"code":1,"at":[{"x":2}]},"data":{"a":" 1","signature":"s"}}';
		expect(fastTextForm(wrapped, JSON.parse(wrapped), true)).toBe('{"a":"1"}');
	});

	it("keeps a __proto__ member as data, in the copies it makes too", () => {
		const text = '{"__proto__":{"n":1,"s":" x "},"o":{"__proto__":[true]}}';
		const parsed = JSON.parse(text);
		expect(fastTextForm(text, parsed, false)).toBe('{"__proto__":{"n":"1","s":"x"},"o":{"__proto__":["1"]}}');
		expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
		expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
	});

	it("matches the text reader at the nesting limit", () => {
		for (const levels of [63, 64]) {
			const text = `{"a":${"[".repeat(levels)}${"]".repeat(levels)}}`;
			const read = (() => {
				try {
					return readTextReferenceForm(text, JSON.parse(text));
				} catch {
					return undefined;
				}
			})();
			expect(fastTextForm(text, JSON.parse(text), false), `${levels} levels`).toBe(read);
		}
	});

	it("wrapped responses take the same route for their data", () => {
		const text = '{"status":"ok","message":null,"data":{"z":1.5,"a":" 2","signature":"s"}}';
		expect(routedTextForm(text, JSON.parse(text), true)).toEqual({
			form: readTextReferenceForm(text, JSON.parse(text), true),
			route: "fast",
		});
	});
});
