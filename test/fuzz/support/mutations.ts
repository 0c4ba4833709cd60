import fc from "fast-check";
import { phpNumberString } from "../../../src/signing/php.js";
import {
	clone,
	type EscapeStyle,
	fromValue,
	type Located,
	locate,
	type Member,
	type Node,
	pick,
	type Style,
	write,
} from "./json-tree.js";

/**
 * Structure-aware mutations of JSON documents, and byte/character mutations of their text.
 * Many of them keep a 2.0 signature valid on purpose (padding PHP trims, another literal
 * for the same number, `true` for `"1"`, escapes): those are the ones a verifier accepts,
 * and what it then hands out must still be exactly what was signed.
 */

/** PHP `trim()`'s set: padding with these keeps a 2.0 signature valid. */
export const TRIMMABLE = [" ", "\t", "\n", "\r", "\0", "\x0B"];
/** Spaces PHP does not trim: padding with these changes the signed string. */
export const NOT_TRIMMABLE = ["\u00a0", "\f", "\u2003", "\ufeff", "\u0085", "\u3000", "\u200b"];

const padding = (set: string[]) => fc.array(fc.constantFrom(...set), { maxLength: 4 }).map((units) => units.join(""));

/** Awkward text: lone and paired surrogates, combining marks, line separators, NUL, escapes' characters. */
export const unicodePiece: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom(
		"\ud800",
		"\udc00",
		"\udbff\udfff",
		"😀",
		"e\u0301",
		"\u2028",
		"\u2029",
		"\ufeff",
		"\u0000",
		"\\",
		'"',
		"/",
		"\u007f",
		"日本",
		"\uffff",
	),
	fc.string({ unit: "binary", maxLength: 4 }),
	fc.string({
		unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
		minLength: 1,
		maxLength: 3,
	}),
);

/** Number literals, valid or not, that parsers and PHP's conversion get wrong. */
export const awkwardLiteral: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom(
		"0",
		"-0",
		"0.0",
		"-0.0",
		"1e400",
		"-1e400",
		"1e-400",
		"9007199254740993",
		"-9007199254740993",
		"9223372036854775807",
		"9223372036854775808",
		"-9223372036854775808",
		"-9223372036854775809",
		"12345678901234567890",
		"0.30000000000000004",
		"1.00000000000000000001",
		"5e-324",
		"1.7976931348623157e308",
		"123456789012345.5",
		"0.00001",
		"1E+2",
		"01",
		"+1",
		".5",
		"5.",
		"1e",
		"-",
		"NaN",
		"Infinity",
		"0x10",
		"1_000",
	),
	fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
	fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => JSON.stringify(value)),
	fc
		.tuple(fc.integer({ min: 1, max: 400 }), fc.constantFrom("", "-"))
		.map(([digits, sign]) => `${sign}${"9".repeat(digits)}`),
);

/** Keys that tempt prototype pollution or confuse the envelope. */
export const awkwardKey: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom(
		"__proto__",
		"constructor",
		"prototype",
		"toString",
		"hasOwnProperty",
		"signature",
		"signVersion",
		"payload",
		"data",
		"status",
		"message",
		"refundId",
		"transactionId",
		"0",
		"1",
		"10",
		"9",
		"",
		" ",
	),
	fc.string({ maxLength: 6 }),
);

/** Small JSON values of every kind, for replacements and new members. */
export const smallNode: fc.Arbitrary<Node> = fc.oneof(
	fc.jsonValue({ maxDepth: 2 }).map(fromValue),
	awkwardLiteral.map((literal): Node => ({ kind: "number", literal })),
	unicodePiece.map((value): Node => ({ kind: "string", value })),
	fc.constantFrom<Node>(
		{ kind: "object", members: [] },
		{ kind: "array", items: [] },
		{ kind: "string", value: "" },
		{ kind: "string", value: "1" },
		{ kind: "literal", text: "true" },
		{ kind: "literal", text: "null" },
	),
);

export type TreeMutation =
	| { op: "pad"; at: number; before: string; after: string }
	| { op: "padOther"; at: number; before: string; after: string }
	| { op: "equivalent"; at: number; choice: number }
	| { op: "replace"; at: number; with: Node }
	| { op: "number"; at: number; literal: string }
	| { op: "unicode"; at: number; inKey: boolean; position: number; text: string }
	| { op: "duplicateKey"; at: number; index: number; copy: boolean; with: Node }
	| { op: "addMember"; at: number; key: string; with: Node; first: boolean }
	| { op: "remove"; at: number; index: number }
	| { op: "reorder"; at: number; shift: number }
	| { op: "nest"; at: number; depth: number; asObject: boolean }
	| { op: "huge"; at: number; size: number; what: "string" | "digits" | "items" | "members" }
	| { op: "renameKey"; at: number; index: number; key: string }
	| { op: "raw"; at: number; text: string }
	| {
			op: "signatureForm";
			form: "url" | "unpadded" | "spaces" | "lines" | "plusAsSpace" | "truncated" | "flipped" | "doubled";
			at: number;
	  };

const at = fc.nat({ max: 1000 });

export const treeMutation: fc.Arbitrary<TreeMutation> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record({
			op: fc.constant("pad" as const),
			at,
			before: padding(TRIMMABLE),
			after: padding(TRIMMABLE),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			op: fc.constant("padOther" as const),
			at,
			before: padding(NOT_TRIMMABLE),
			after: padding(NOT_TRIMMABLE),
		}),
	},
	{ weight: 6, arbitrary: fc.record({ op: fc.constant("equivalent" as const), at, choice: fc.nat({ max: 20 }) }) },
	{ weight: 3, arbitrary: fc.record({ op: fc.constant("replace" as const), at, with: smallNode }) },
	{ weight: 3, arbitrary: fc.record({ op: fc.constant("number" as const), at, literal: awkwardLiteral }) },
	{
		weight: 3,
		arbitrary: fc.record({
			op: fc.constant("unicode" as const),
			at,
			inKey: fc.boolean(),
			position: fc.nat({ max: 64 }),
			text: unicodePiece,
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			op: fc.constant("duplicateKey" as const),
			at,
			index: fc.nat({ max: 64 }),
			copy: fc.boolean(),
			with: smallNode,
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			op: fc.constant("addMember" as const),
			at,
			key: awkwardKey,
			with: smallNode,
			first: fc.boolean(),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ op: fc.constant("remove" as const), at, index: fc.nat({ max: 64 }) }) },
	{ weight: 2, arbitrary: fc.record({ op: fc.constant("reorder" as const), at, shift: fc.nat({ max: 64 }) }) },
	{
		weight: 1,
		arbitrary: fc.record({
			op: fc.constant("nest" as const),
			at,
			depth: fc.oneof(fc.integer({ min: 1, max: 70 }), fc.constantFrom(63, 64, 65, 1000, 100_000)),
			asObject: fc.boolean(),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			op: fc.constant("huge" as const),
			at,
			size: fc.constantFrom(1000, 70_000, 200_000),
			what: fc.constantFrom("string" as const, "digits" as const, "items" as const, "members" as const),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			op: fc.constant("renameKey" as const),
			at,
			index: fc.nat({ max: 64 }),
			key: fc.oneof(
				awkwardKey,
				padding(TRIMMABLE).map((pad) => `${pad}status${pad}`),
			),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ op: fc.constant("raw" as const), at, text: fc.string({ unit: "binary", maxLength: 12 }) }),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			op: fc.constant("signatureForm" as const),
			form: fc.constantFrom(
				"url" as const,
				"unpadded" as const,
				"spaces" as const,
				"lines" as const,
				"plusAsSpace" as const,
				"truncated" as const,
				"flipped" as const,
				"doubled" as const,
			),
			at,
		}),
	},
);

const isString = (node: Node) => node.kind === "string";
const isObject = (node: Node) => node.kind === "object";
const isContainer = (node: Node) => node.kind === "object" || node.kind === "array";
const isLeaf = (node: Node) => !isContainer(node);

/** Replacements that a 2.0 reference form signs exactly as it signs `node`. */
function equivalents(node: Node): Node[] {
	switch (node.kind) {
		case "string": {
			const out: Node[] = [{ kind: "string", value: ` ${node.value}\t` }];
			const trimmed = node.value.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, "");
			if (trimmed === "1") out.push({ kind: "literal", text: "true" }, { kind: "number", literal: "1" });
			if (trimmed === "") out.push({ kind: "literal", text: "null" }, { kind: "literal", text: "false" });
			if (/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(trimmed) && phpNumberString(trimmed) === trimmed) {
				out.push({ kind: "number", literal: trimmed });
			}
			return out;
		}
		case "number": {
			const { literal } = node;
			const out: Node[] = [{ kind: "string", value: phpNumberString(literal) ?? literal }];
			if (/^-?[0-9]+$/.test(literal))
				out.push(...[`${literal}.0`, `${literal}e0`, `${literal}E+0`, `${literal}.000`].map(numberNode));
			else out.push(...[`${literal}0`, `${literal}e-0`].map(numberNode));
			return out;
		}
		case "literal":
			return node.text === "true"
				? [{ kind: "string", value: "1" }, numberNode("1")]
				: [
						{ kind: "string", value: "" },
						{ kind: "literal", text: node.text === "null" ? "false" : "null" },
					];
		case "array":
			return [{ kind: "object", members: node.items.map((value, i) => ({ key: String(i), value })) }];
		case "object":
			return node.members.every((m, i) => m.key === String(i))
				? [{ kind: "array", items: node.members.map((m) => m.value) }]
				: [];
		case "raw":
			return [];
	}
}

function numberNode(literal: string): Node {
	return { kind: "number", literal };
}

function huge(size: number, what: "string" | "digits" | "items" | "members"): Node {
	switch (what) {
		case "string":
			return { kind: "string", value: "x".repeat(size) };
		case "digits":
			return numberNode(`1${"0".repeat(size)}`);
		case "items":
			return { kind: "raw", text: `[${"0,".repeat(size / 2)}0]` };
		case "members":
			return {
				kind: "object",
				members: Array.from({ length: size / 20 }, (_, i) => ({ key: `k${i}`, value: numberNode(String(i)) })),
			};
	}
}

function nest(node: Node, depth: number, asObject: boolean): Node {
	// Deep documents as raw text: a tree this deep would overflow the writer's own recursion.
	const inner = write(node);
	return asObject
		? { kind: "raw", text: `${'{"a":'.repeat(depth)}${inner}${"}".repeat(depth)}` }
		: { kind: "raw", text: `${"[".repeat(depth)}${inner}${"]".repeat(depth)}` };
}

function insertAt(text: string, position: number, piece: string): string {
	const where = position % (text.length + 1);
	return text.slice(0, where) + piece + text.slice(where);
}

function signatureForm(signature: string, form: Extract<TreeMutation, { op: "signatureForm" }>["form"]): string {
	switch (form) {
		case "url":
			return signature.replaceAll("+", "-").replaceAll("/", "_");
		case "unpadded":
			return signature.replace(/=+$/, "");
		case "spaces":
			return signature.replaceAll("+", " ");
		case "lines":
			return signature.replace(/(.{64})/g, "$1\r\n");
		case "plusAsSpace":
			return ` ${signature.replaceAll("+", " ")} `;
		case "truncated":
			return signature.slice(0, -4);
		case "flipped":
			return (signature[0] === "A" ? "B" : "A") + signature.slice(1);
		case "doubled":
			return signature + signature;
	}
}

/** Applies one mutation in place; a mutation that finds nothing to work on does nothing. */
export function applyTreeMutation(root: { node: Node }, mutation: TreeMutation): void {
	const nodes = locate(root);
	const target = (wanted: (node: Node) => boolean): Located | undefined => pick(nodes, mutation.at, wanted);
	switch (mutation.op) {
		case "pad":
		case "padOther": {
			const found = target(isString);
			if (found?.node.kind === "string")
				found.replace({ kind: "string", value: mutation.before + found.node.value + mutation.after });
			return;
		}
		case "equivalent": {
			const found = target(() => true);
			const options = found ? equivalents(found.node) : [];
			if (found && options.length > 0) found.replace(options[mutation.choice % options.length] as Node);
			return;
		}
		case "replace":
			target(() => true)?.replace(clone(mutation.with));
			return;
		case "number":
			target(isLeaf)?.replace(numberNode(mutation.literal));
			return;
		case "unicode": {
			if (mutation.inKey) {
				const found = target((node) => isObject(node) && node.members.length > 0);
				if (found?.node.kind !== "object") return;
				const chosen = found.node.members[mutation.position % found.node.members.length] as Member;
				chosen.key = insertAt(chosen.key, mutation.position, mutation.text);
				return;
			}
			const found = target(isString);
			if (found?.node.kind === "string")
				found.replace({ kind: "string", value: insertAt(found.node.value, mutation.position, mutation.text) });
			return;
		}
		case "duplicateKey": {
			const found = target((node) => isObject(node) && node.members.length > 0);
			if (found?.node.kind !== "object") return;
			const chosen = found.node.members[mutation.index % found.node.members.length] as Member;
			found.node.members.push({ key: chosen.key, value: mutation.copy ? clone(chosen.value) : clone(mutation.with) });
			return;
		}
		case "addMember": {
			const found = target(isObject);
			if (found?.node.kind !== "object") return;
			const added = { key: mutation.key, value: clone(mutation.with) };
			if (mutation.first) found.node.members.unshift(added);
			else found.node.members.push(added);
			return;
		}
		case "remove": {
			const found = target(
				(node) =>
					(node.kind === "object" && node.members.length > 0) || (node.kind === "array" && node.items.length > 0),
			);
			if (found?.node.kind === "object") found.node.members.splice(mutation.index % found.node.members.length, 1);
			else if (found?.node.kind === "array") found.node.items.splice(mutation.index % found.node.items.length, 1);
			return;
		}
		case "reorder": {
			const found = target(isContainer);
			const list =
				found?.node.kind === "object"
					? found.node.members
					: found?.node.kind === "array"
						? found.node.items
						: undefined;
			if (!list || list.length < 2) return;
			const turn = mutation.shift % list.length;
			const reordered = turn === 0 ? [...list].reverse() : [...list.slice(turn), ...list.slice(0, turn)];
			list.splice(0, list.length, ...(reordered as never[]));
			return;
		}
		case "nest": {
			const found = target(() => true);
			if (found) found.replace(nest(found.node, mutation.depth, mutation.asObject));
			return;
		}
		case "huge":
			target(isLeaf)?.replace(huge(mutation.size, mutation.what));
			return;
		case "renameKey": {
			const found = target((node) => isObject(node) && node.members.length > 0);
			if (found?.node.kind !== "object") return;
			(found.node.members[mutation.index % found.node.members.length] as Member).key = mutation.key;
			return;
		}
		case "raw":
			target(() => true)?.replace({ kind: "raw", text: mutation.text });
			return;
		case "signatureForm": {
			const signature = nodes
				.map((located) => located.node)
				.find((node) => node.kind === "object" && node.members.some((m) => m.key === "signature"));
			const slot = signature?.kind === "object" ? signature.members.find((m) => m.key === "signature") : undefined;
			if (slot?.value.kind === "string")
				slot.value = { kind: "string", value: signatureForm(slot.value.value, mutation.form) };
			return;
		}
	}
}

/** Writing styles: all write the same document unless `raw` meets a lone surrogate. */
export const style: fc.Arbitrary<Style> = fc.record({
	escape: fc.constantFrom<EscapeStyle>("json", "json", "raw", "ascii", "upper"),
	space: fc.constantFrom("", "", "", " ", "\n", "\t", "\r\n  "),
});

export type TextMutation =
	| { op: "flip"; position: number; bit: number }
	| { op: "insert"; position: number; text: string }
	| { op: "delete"; position: number; length: number }
	| { op: "duplicate"; position: number; length: number }
	| { op: "truncate"; position: number };

const position = fc.nat({ max: 1 << 20 });

export const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
	fc.record({ op: fc.constant("flip" as const), position, bit: fc.nat({ max: 15 }) }),
	fc.record({
		op: fc.constant("insert" as const),
		position,
		text: fc.oneof(
			unicodePiece,
			fc.constantFrom('"', "\\", "{", "}", "[", "]", ",", ":", " ", "\\u", "\\ud800", "null", "-", "e", ".", "0"),
		),
	}),
	fc.record({ op: fc.constant("delete" as const), position, length: fc.integer({ min: 1, max: 16 }) }),
	fc.record({ op: fc.constant("duplicate" as const), position, length: fc.integer({ min: 1, max: 64 }) }),
	fc.record({ op: fc.constant("truncate" as const), position }),
);

export function applyTextMutation(text: string, mutation: TextMutation): string {
	const where = mutation.position % (text.length + 1);
	switch (mutation.op) {
		case "flip": {
			if (where >= text.length) return text;
			const unit = text.charCodeAt(where) ^ (1 << mutation.bit);
			return text.slice(0, where) + String.fromCharCode(unit) + text.slice(where + 1);
		}
		case "insert":
			return text.slice(0, where) + mutation.text + text.slice(where);
		case "delete":
			return text.slice(0, where) + text.slice(where + mutation.length);
		case "duplicate":
			return (
				text.slice(0, where + mutation.length) +
				text.slice(where, where + mutation.length) +
				text.slice(where + mutation.length)
			);
		case "truncate":
			return text.slice(0, where);
	}
}

export type ByteMutation =
	| { op: "flip"; position: number; bit: number }
	| { op: "insert"; position: number; bytes: number[] }
	| { op: "delete"; position: number; length: number }
	| { op: "truncate"; position: number };

export const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
	fc.record({ op: fc.constant("flip" as const), position, bit: fc.nat({ max: 7 }) }),
	fc.record({
		op: fc.constant("insert" as const),
		position,
		bytes: fc.oneof(
			// Invalid UTF-8: stray continuation, overlong, an encoded surrogate, past U+10FFFF, a cut sequence; and a BOM.
			fc.constantFrom<number[]>(
				[0x80],
				[0xc0, 0xaf],
				[0xed, 0xa0, 0x80],
				[0xf4, 0x90, 0x80, 0x80],
				[0xe2, 0x82],
				[0xff],
				[0xef, 0xbb, 0xbf],
				[0],
			),
			fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 4 }),
		),
	}),
	fc.record({ op: fc.constant("delete" as const), position, length: fc.integer({ min: 1, max: 8 }) }),
	fc.record({ op: fc.constant("truncate" as const), position }),
);

export function applyByteMutation(bytes: Uint8Array, mutation: ByteMutation): Uint8Array {
	const where = mutation.position % (bytes.length + 1);
	switch (mutation.op) {
		case "flip": {
			if (where >= bytes.length) return bytes;
			const out = bytes.slice();
			out[where] = (out[where] as number) ^ (1 << mutation.bit);
			return out;
		}
		case "insert":
			return Uint8Array.from([...bytes.subarray(0, where), ...mutation.bytes, ...bytes.subarray(where)]);
		case "delete":
			return Uint8Array.from([...bytes.subarray(0, where), ...bytes.subarray(where + mutation.length)]);
		case "truncate":
			return bytes.slice(0, where);
	}
}

/** The mutation lists of one case: mostly a few structural edits, sometimes a text edit on top. */
export const treeMutations = fc.oneof(
	{ weight: 1, arbitrary: fc.constant<TreeMutation[]>([]) },
	{ weight: 3, arbitrary: fc.array(treeMutation, { minLength: 1, maxLength: 3 }) },
);
export const textMutations = fc.oneof(
	{ weight: 4, arbitrary: fc.constant<TextMutation[]>([]) },
	{ weight: 1, arbitrary: fc.array(textMutation, { minLength: 1, maxLength: 2 }) },
);
export const byteMutations = fc.oneof(
	{ weight: 3, arbitrary: fc.constant<ByteMutation[]>([]) },
	{ weight: 1, arbitrary: fc.array(byteMutation, { minLength: 1, maxLength: 2 }) },
);
