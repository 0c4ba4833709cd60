/**
 * A JSON document as the fuzzer edits it: members in their written order, numbers as
 * literals, and room for text that is not JSON at all. Built from plain values, written
 * back in several styles (escapes, spacing) that all mean the same document.
 */

export type Node =
	| { kind: "object"; members: Member[] }
	| { kind: "array"; items: Node[] }
	| { kind: "string"; value: string }
	| { kind: "number"; literal: string }
	| { kind: "literal"; text: "true" | "false" | "null" }
	/** Written as is: anything, valid JSON or not. */
	| { kind: "raw"; text: string };

export interface Member {
	key: string;
	value: Node;
}

/** The document from a plain value, in the order `JSON.stringify` writes it. */
export function fromValue(value: unknown): Node {
	if (typeof value === "string") return { kind: "string", value };
	if (typeof value === "number") return { kind: "number", literal: JSON.stringify(value) };
	if (typeof value === "boolean") return { kind: "literal", text: value ? "true" : "false" };
	if (value === null || value === undefined) return { kind: "literal", text: "null" };
	if (Array.isArray(value)) return { kind: "array", items: value.map(fromValue) };
	const members: Member[] = [];
	for (const key of Object.keys(value)) {
		const item = (value as Record<string, unknown>)[key];
		if (item !== undefined) members.push({ key, value: fromValue(item) });
	}
	return { kind: "object", members };
}

export function clone(node: Node): Node {
	return structuredClone(node);
}

/** How strings are escaped: all styles but `raw` write valid JSON for any well-formed string. */
export type EscapeStyle = "json" | "raw" | "ascii" | "upper";

export interface Style {
	escape: EscapeStyle;
	/** Whitespace written around every token (JSON's four, or none). */
	space: string;
}

export const COMPACT: Style = { escape: "json", space: "" };

function hex(unit: number, upper: boolean): string {
	const digits = unit.toString(16).padStart(4, "0");
	return `\\u${upper ? digits.toUpperCase() : digits}`;
}

export function writeString(value: string, escaping: EscapeStyle): string {
	if (escaping === "json") return JSON.stringify(value);
	let out = '"';
	for (let i = 0; i < value.length; i++) {
		const unit = value.charCodeAt(i);
		const char = value[i] as string;
		if (char === '"' || char === "\\") out += `\\${char}`;
		else if (unit < 0x20) out += hex(unit, escaping === "upper");
		else if (escaping === "raw") out += char;
		else if (char === "/") out += "\\/";
		else if (unit >= 0x7f) out += hex(unit, escaping === "upper");
		else out += char;
	}
	return `${out}"`;
}

export function write(node: Node, style: Style = COMPACT): string {
	const s = style.space;
	switch (node.kind) {
		case "string":
			return writeString(node.value, style.escape);
		case "number":
			return node.literal;
		case "literal":
			return node.text;
		case "raw":
			return node.text;
		case "array":
			return `[${s}${node.items.map((item) => write(item, style)).join(`${s},${s}`)}${s}]`;
		case "object": {
			const members = node.members.map(
				(member) => `${writeString(member.key, style.escape)}${s}:${s}${write(member.value, style)}`,
			);
			return `{${s}${members.join(`${s},${s}`)}${s}}`;
		}
	}
}

/** A node with where it sits, for mutations that replace it. */
export interface Located {
	node: Node;
	replace: (next: Node) => void;
}

/** Every node in document order; the root first. */
export function locate(root: { node: Node }): Located[] {
	const out: Located[] = [];
	const visit = (node: Node, replace: (next: Node) => void) => {
		out.push({ node, replace });
		if (node.kind === "array") {
			node.items.forEach((item, i) => {
				visit(item, (next) => {
					node.items[i] = next;
				});
			});
		} else if (node.kind === "object") {
			for (const member of node.members) {
				visit(member.value, (next) => {
					member.value = next;
				});
			}
		}
	};
	visit(root.node, (next) => {
		root.node = next;
	});
	return out;
}

/** The first node at or after `at` (wrapping around) that `wanted` accepts. */
export function pick(nodes: readonly Located[], at: number, wanted: (node: Node) => boolean): Located | undefined {
	for (let i = 0; i < nodes.length; i++) {
		const candidate = nodes[(at + i) % nodes.length] as Located;
		if (wanted(candidate.node)) return candidate;
	}
	return undefined;
}

/** The member named `key` of an object node. */
export function member(node: Node, key: string): Member | undefined {
	return node.kind === "object" ? node.members.find((m) => m.key === key) : undefined;
}
