import { execFileSync } from "node:child_process";
import { isDeepStrictEqual } from "node:util";
import { deserialize, serialize } from "node:v8";
import fc from "fast-check";
import { describe } from "vitest";
import { MalformedMessageError } from "../../src/errors/malformed-message-error.js";
import { base64Decode } from "../../src/signing/encoding.js";
import { parseJsonText, TextNumber, TextObject, type TextValue } from "../../src/signing/json-text.js";
import { expectNoPollution, typedOutcome, violation } from "./support/checks.js";
import { unicodePiece } from "./support/mutations.js";
import { fuzzTarget } from "./support/runner.js";
import { gatewayFields, messageCases, signedMessages } from "./support/signed.js";

/**
 * The two low-level readers of untrusted text:
 * - parseJsonText may throw MalformedMessageError only, and reads exactly JSON.parse's
 *   language, except that it refuses duplicate member names and nesting past 64 levels;
 * - base64Decode never throws, and decodes exactly what D2/D5 describe.
 */

/** The tree as JSON.parse would build it (a `__proto__` member stays a member). */
function plain(value: TextValue): unknown {
	if (value instanceof TextNumber) return Number(value.literal);
	if (Array.isArray(value)) return value.map(plain);
	if (value instanceof TextObject) {
		const out: Record<string, unknown> = {};
		value.keys.forEach((key, i) => {
			Object.defineProperty(out, key, {
				value: plain(value.values[i] as TextValue),
				enumerable: true,
				writable: true,
				configurable: true,
			});
		});
		return out;
	}
	return value;
}

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

/**
 * V8's JSON.parse (Node 24 and later) can return a key seen earlier in the process instead of
 * the one written: after a key written `"q\\"`, the key written `"q\u0041"` reads as `q\`
 * (nodejs/node#63785). A mismatch is therefore judged again by JSON.parse in a fresh process,
 * whose key cache is clean; text and values cross by structured clone, which parses no JSON.
 */
function sameAsFreshJsonParse(text: string, ours: unknown): boolean {
	const script =
		"const v8=require('node:v8');let t='';process.stdin.on('data',d=>t+=d).on('end',()=>" +
		"process.stdout.write(v8.serialize(JSON.parse(v8.deserialize(Buffer.from(t,'base64')))).toString('base64')))";
	const output = execFileSync(process.execPath, ["-e", script], {
		input: serialize(text).toString("base64"),
		encoding: "utf8",
	});
	return isDeepStrictEqual(ours, deserialize(Buffer.from(output, "base64")));
}

const ALLOWED_REFUSALS = /duplicate member name|nesting deeper than 64 levels/;

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

/** D5's loose reading: line breaks dropped, base64url's `-` and `_`, a space for a `+`, padding optional (never inside). */
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
	fuzzTarget("parseJsonText: mutated JSON", () =>
		fc.property(jsonTexts, (text) => {
			const ours = typedOutcome(() => parseJsonText(text, "message"), [MalformedMessageError]);
			let expected: { ok: true; value: unknown } | { ok: false };
			try {
				expected = { ok: true, value: JSON.parse(text) };
			} catch {
				expected = { ok: false };
			}
			if (ours.ok) {
				if (!expected.ok) violation("accepted a text JSON.parse refuses");
				else if (
					!isDeepStrictEqual(plain(ours.value), expected.value) &&
					!sameAsFreshJsonParse(text, plain(ours.value))
				) {
					violation("read other values than JSON.parse (also in a fresh process)");
				}
			} else if (expected.ok && !ALLOWED_REFUSALS.test(ours.error.message)) {
				violation(`refused valid JSON: ${ours.error.message}`);
			}
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
				violation(
					`decoded ${decoded ? Buffer.from(decoded).toString("hex") : "nothing"}, expected ${expected ? Buffer.from(expected).toString("hex") : "nothing"}`,
				);
			}
		}),
	);
});
