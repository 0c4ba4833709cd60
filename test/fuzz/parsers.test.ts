import fc from "fast-check";
import { describe } from "vitest";
import { MalformedMessageError } from "../../src/index.js";
import { isPlainObject } from "../../src/internal/plain-object.js";
import { canonicalString, referenceFormOfText } from "../../src/signing/canonical.js";
import { base64Decode } from "../../src/signing/encoding.js";
import { expectNoPollution, typedOutcome, violation } from "./support/checks.js";
import { unicodePiece } from "./support/mutations.js";
import { fuzzTarget } from "./support/runner.js";
import { gatewayFields, messageCases, signedMessages } from "./support/signed.js";

/**
 * The two low-level readers of untrusted text:
 * - the one-pass writer of the 2.0 signed string, over any text JSON.parse accepts, may throw
 *   MalformedMessageError only, and agrees with the object serializer wherever the text's order
 *   and literals are the object's own (the text JSON.stringify writes of what JSON.parse read);
 * - base64Decode never throws, and decodes exactly what D2/D5 describe.
 */

/** Mutated messages, mutated arbitrary JSON, and text that is hardly JSON at all. */
const jsonTexts: fc.Arbitrary<string> = fc.oneof(
	{ weight: 4, arbitrary: messageCases(signedMessages(gatewayFields, 16)).map((message) => message.text) },
	{ weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
	{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
	{
		weight: 1,
		arbitrary: fc
			.array(
				fc.oneof(
					unicodePiece,
					fc.constantFrom("{", "}", "[", "]", '"', ":", ",", "1", "-", "e", "true", "nul", " ", "\\u00"),
				),
				{ maxLength: 30 },
			)
			.map((parts) => parts.join("")),
	},
);

const ALLOWED_REFUSALS = /duplicate member name|nesting deeper than 64 levels|well-formed Unicode|must be finite/;

/** Standard base64 with padding: what a strict decoder accepts. */
const STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A reference decoder of unpadded standard base64, written from RFC 4648 (leftover bits dropped). */
function referenceDecode(unpadded: string): Uint8Array | undefined {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	if (unpadded.length % 4 === 1) return undefined;
	const out: number[] = [];
	let bits = 0;
	let count = 0;
	for (const char of unpadded) {
		const digit = alphabet.indexOf(char);
		if (digit < 0) return undefined;
		bits = (bits << 6) | digit;
		count += 6;
		if (count >= 8) {
			count -= 8;
			out.push((bits >> count) & 0xff);
		}
	}
	return Uint8Array.from(out);
}

/** D5's loose reading: line breaks dropped, base64url's `-` and `_`, a space for `+`, padding optional (at the end). */
function referenceLoose(text: string): Uint8Array | undefined {
	const normalized = text
		.replace(/[\r\n]/g, "")
		.replaceAll("-", "+")
		.replaceAll("_", "/")
		.replaceAll(" ", "+");
	const unpadded = normalized.replace(/={1,2}$/, "");
	return referenceDecode(unpadded);
}

const base64Texts: fc.Arbitrary<string> = fc.oneof(
	fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString("base64")),
	fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("base64url")),
	fc
		.tuple(
			fc.uint8Array({ minLength: 1, maxLength: 300 }),
			fc.array(
				fc.tuple(
					fc.nat(),
					fc.constantFrom("\n", "\r\n", " ", "=", "==", "-", "_", "!", "\0", "é", "\ud800", "A", "+", "/"),
				),
				{ maxLength: 4 },
			),
		)
		.map(([bytes, edits]) =>
			edits.reduce(
				(text, [at, piece]) => text.slice(0, at % (text.length + 1)) + piece + text.slice(at % (text.length + 1)),
				Buffer.from(bytes).toString("base64"),
			),
		),
	fc.string({ unit: fc.constantFrom(..."AQw+/-_= \r\n".split("")), maxLength: 12 }),
	fc.string({ unit: "binary", maxLength: 16 }),
);

describe("fuzz: text readers", () => {
	fuzzTarget("the 2.0 text writer: mutated JSON", () =>
		fc.property(jsonTexts, (text) => {
			let parsed: unknown;
			try {
				parsed = JSON.parse(text);
			} catch {
				return; // refused before the writer runs
			}
			if (!isPlainObject(parsed)) return;
			const ours = typedOutcome(() => referenceFormOfText(text), [MalformedMessageError]);
			if (!ours.ok) {
				if (!ALLOWED_REFUSALS.test(ours.error.message)) violation(`refused valid JSON: ${ours.error.message}`);
				return;
			}
			let ownOrder: string;
			try {
				ownOrder = JSON.stringify(parsed);
			} catch (error) {
				if (error instanceof RangeError) return; // nested past JSON.stringify's stack: no object order to compare
				throw error;
			}
			const fromText = typedOutcome(() => referenceFormOfText(ownOrder), [MalformedMessageError]);
			const fromObject = typedOutcome(() => canonicalString(JSON.parse(ownOrder)), [MalformedMessageError]);
			if (fromText.ok !== fromObject.ok || (fromText.ok && fromObject.ok && fromText.value !== fromObject.value))
				violation("the text writer and the object serializer disagree on a text in the object's own order");
			expectNoPollution();
		}),
	);

	fuzzTarget("base64Decode: strict and loose", () =>
		fc.property(base64Texts, fc.boolean(), (text, loose) => {
			let decoded: Uint8Array | undefined;
			try {
				decoded = base64Decode(text, loose);
			} catch (error) {
				violation(`threw ${String(error)}: base64Decode returns undefined for what is not base64`);
			}
			const expected = loose
				? referenceLoose(text)
				: STRICT.test(text)
					? referenceDecode(text.replace(/=+$/, ""))
					: undefined;
			if (
				expected === undefined
					? decoded !== undefined
					: decoded === undefined || !Buffer.from(decoded).equals(Buffer.from(expected))
			) {
				const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString("hex") : "nothing");
				violation(`decoded ${hex(decoded)}, expected ${hex(expected)}`);
			}
		}),
	);
});
