import { isPlainObject } from "../../internal/plain-object.js";
import { REDACTED, redact, redactText } from "../../internal/redact.js";
import { canonicalString } from "../../signing/canonical.js";
import { utf8Encode } from "../../signing/encoding.js";
import { isListKeys, naturalCompare, phpNumberString, phpTrim } from "../../signing/php.js";
import type { SignVersion } from "../../signing/seal.js";

type Path = Array<string | number>;

const PAYLOAD_HEADING = "signVersion: 2.1, the payload text is signed as is (D4)";
const REDACTION_NOTE = "(card data and key material are redacted here; the signature covers the real values)";

function pathText(path: Path): string {
	let text = "";
	for (const part of path) text += typeof part === "number" ? `[${part}]` : text === "" ? part : `.${part}`;
	return text;
}

/** A value as the explanation shows it: through the one redaction, so a CVV or card number never appears. */
function shown(path: Path, value: unknown): string {
	const key = String(path.at(-1) ?? "");
	const masked = (redact({ [key]: value }) as Record<string, unknown>)[key];
	return masked === undefined ? REDACTED : JSON.stringify(masked);
}

/** The string a leaf becomes under the reference form (D3 step 3), or undefined for a container. */
function leafString(value: unknown): string | undefined {
	if (typeof value === "string") return phpTrim(value);
	if (typeof value === "number") return phpNumberString(String(value));
	if (typeof value === "boolean") return value ? "1" : "";
	return value === null ? "" : undefined;
}

/** Walks the message: leaves whose signed string differs from their JSON, and objects written as lists. */
function walk(value: unknown, path: Path, changed: string[], lists: string[]): void {
	const leaf = leafString(value);
	if (leaf !== undefined) {
		const unchanged = JSON.stringify(value) === JSON.stringify(leaf);
		if (!unchanged) changed.push(`${pathText(path)}: ${shown(path, value)} -> ${shown(path, leaf)}`);
		return;
	}
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) walk(value[i] ?? null, [...path, i], changed, lists);
		return;
	}
	if (!isPlainObject(value)) return;
	const keys = Object.keys(value).filter((key) => value[key] !== undefined);
	const asList = keys.length === 0 ? "({} -> [])" : `(keys 0..${keys.length - 1})`;
	if (isListKeys(keys)) lists.push(`${pathText(path)} ${asList}`);
	for (const key of keys) walk(value[key], [...path, key], changed, lists);
}

const indent = (lines: string[]) => lines.map((line) => `   ${line}`);

/** The exact string the signature covers, and the message it is signed for (the fields it leaves out removed). */
export function signedText(
	fields: Record<string, unknown>,
	version: SignVersion,
): { text: string; message: Record<string, unknown> } {
	if (version === "2.1") {
		if (typeof fields.payload === "string") return { text: fields.payload, message: fields };
		const { signature: _s, signVersion: _v, ...rest } = fields;
		return { text: JSON.stringify(rest), message: rest };
	}
	const { signature: _s, ...rest } = fields;
	return { text: canonicalString(rest), message: rest };
}

function explainFlat(fields: Record<string, unknown>): string {
	const { text: signedString, message: rest } = signedText(fields, "2.0");
	const order = Object.keys(rest)
		.filter((key) => rest[key] !== undefined)
		.sort(naturalCompare);
	const changed: string[] = [];
	const lists: string[] = [];
	if (isListKeys(order)) lists.push("(the top level)");
	for (const key of order) walk(rest[key], [key], changed, lists);
	const lines = [
		"signVersion: 2.0, signed in the gateway's reference form (D3)",
		fields.signature === undefined
			? "1. Nothing to remove (no top-level signature)."
			: '1. Removed the top-level "signature".',
		"2. Top-level keys in PHP's natural order (ksort SORT_NATURAL); nested objects keep their own order:",
		...indent([order.join(", ")]),
		"3. Every leaf becomes a string as PHP's trim() makes it " +
			'(true -> "1", false and null -> "", floats at 14 digits);',
		`   ${changed.length === 0 ? "no leaf changes." : "these change:"}`,
		...indent(changed),
		lists.length === 0 ? "4. No object is written as a list." : "4. Written as lists (objects keyed 0..n-1, and {}):",
		...indent(lists),
		'5. Escaped as PHP\'s json_encode: "/" as "\\/", every character above U+007F as \\uXXXX.',
	];
	return withString(lines, signedString);
}

function explainPayload(fields: Record<string, unknown>): string {
	const signedString = signedText(fields, "2.1").text;
	if (typeof fields.payload === "string")
		return withString([PAYLOAD_HEADING, "1. The input is a 2.1 message: its payload is signed."], signedString);
	const lines = [
		PAYLOAD_HEADING,
		'1. Removed "signature" and "signVersion": they travel beside the payload.',
		"2. The other fields as compact JSON (JSON.stringify): keys in the object's order, no whitespace,",
		'   "/" and non-ASCII written as they are. That text is the payload the request carries.',
	];
	return withString(lines, signedString);
}

function withString(lines: string[], signedString: string): string {
	const safe = redactText(signedString);
	lines.push(`Signed string (${utf8Encode(signedString).length} bytes of UTF-8):`, safe);
	if (safe !== signedString) lines.push(REDACTION_NOTE);
	return `${lines.join("\n")}\n`;
}

/**
 * What `sign --explain` prints: the steps from a request to the exact string that is signed for it, and that
 * string, card data and key material redacted, for comparing with what the gateway's support sees.
 * @throws MalformedMessageError when the fields cannot be signed.
 */
export function explainSignedString(fields: Record<string, unknown>, version: SignVersion): string {
	return version === "2.1" ? explainPayload(fields) : explainFlat(fields);
}
