import { InvalidKeyError } from "../errors/invalid-key-error.js";
import { base64Decode, utf8Decode } from "./encoding.js";

/**
 * Key text as CI secrets and environment variables carry it, made into a PEM block or DER bytes:
 * a PEM whose line breaks are the two characters `\n`, a PEM in quotes or indented (YAML, .env files),
 * a PEM flattened to one line, and base64 of a PEM all read as the PEM itself. Nothing here ever puts
 * the text into a message.
 */

/** What the text turned out to be, for the error when the key inside it still does not load. */
export type KeyTextShape =
	| "PEM text"
	| "PEM text with its line breaks written as \\n"
	| "base64 of a PEM text"
	| "base64 (DER bytes)";

export type ReadKeyText =
	| { encoding: "pem"; label: string; text: string; shape: KeyTextShape }
	| { encoding: "der"; bytes: Uint8Array; shape: KeyTextShape };

/** A PEM label (RFC 7468): capital letters, digits and spaces, `ENCRYPTED PRIVATE KEY` the longest a key has. */
const PEM_LABEL = /^[A-Z0-9 ]{1,64}$/;
/**
 * The most characters key text may have, refused before anything reads it. A 4096-bit private key's PEM has
 * about 3,300, an encrypted one or a certificate a few hundred more, and base64 of such a PEM with its line
 * breaks written as `\r\n` stays under 7,000: the limit is ten times that.
 */
export const MAX_KEY_TEXT_LENGTH = 64 * 1024;
const QUOTED = /^(["'`])([\s\S]*)\1$/;
const ESCAPED_BREAK = /\\r\\n|\\n|\\r/g;

/** What every refusal of unreadable text ends with. */
export const KEY_TEXT_FORMS =
	"Give the PEM text (its line breaks real, or written as \\n), base64 of the DER bytes, or base64 of the PEM text.";

/** A PEM block rebuilt from its label and body: lines trimmed, a body flattened to one line wrapped at 64. */
function canonicalPem(label: string, body: string): string {
	const lines = body
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "");
	// Encrypted PKCS#1 carries "Proc-Type:" and "DEK-Info:" headers before a blank line: kept line by line.
	const headers = lines.filter((line) => line.includes(":"));
	const base64 = lines
		.filter((line) => !line.includes(":"))
		.join("")
		.replace(/\s+/g, "");
	const wrapped = base64.match(/.{1,64}/g) ?? [];
	const head = headers.length === 0 ? [] : [...headers, ""];
	return [`-----BEGIN ${label}-----`, ...head, ...wrapped, `-----END ${label}-----`, ""].join("\n");
}

/** The text without surrounding whitespace and one pair of surrounding quotes, line breaks as LF. */
function unwrap(input: string): string {
	const text = input.replace(/\r\n?/g, "\n").trim();
	const quoted = QUOTED.exec(text);
	return quoted ? (quoted[2] ?? "").trim() : text;
}

/**
 * The label and body of the PEM block that the text's first `-----BEGIN` line opens, up to its first matching
 * `-----END` line; undefined when that line has no valid label or no matching end. Only the first `-----BEGIN`
 * counts (a key's text holds one block): each search runs once over the text, so the time is linear in its
 * length however many `-----BEGIN` lines it repeats.
 */
export function findPemBlock(text: string): { label: string; body: string } | undefined {
	const begin = text.indexOf("-----BEGIN ");
	if (begin === -1) return undefined;
	const labelStart = begin + "-----BEGIN ".length;
	const labelEnd = text.indexOf("-----", labelStart);
	if (labelEnd === -1) return undefined;
	const label = text.slice(labelStart, labelEnd);
	if (!PEM_LABEL.test(label)) return undefined;
	const bodyStart = labelEnd + "-----".length;
	const end = text.indexOf(`-----END ${label}-----`, bodyStart);
	return end === -1 ? undefined : { label, body: text.slice(bodyStart, end) };
}

function asPem(text: string, shape: KeyTextShape): ReadKeyText | undefined {
	const escaped = text.includes("-----BEGIN") && /\\[rn]/.test(text);
	const plain = escaped ? text.replace(ESCAPED_BREAK, "\n") : text;
	const block = findPemBlock(plain);
	if (!block) return undefined;
	const found = escaped && shape === "PEM text" ? "PEM text with its line breaks written as \\n" : shape;
	return { encoding: "pem", label: block.label, text: canonicalPem(block.label, block.body), shape: found };
}

/** Why text that is neither PEM nor base64 was refused, said in terms of what it looks like. */
function unreadable(text: string, role: "private" | "public"): InvalidKeyError {
	const what = `The ${role} key`;
	let looks: string;
	if (text === "") looks = "is empty: the secret or environment variable holding it is unset or empty.";
	else if (text.includes("-----BEGIN"))
		looks =
			"looks like PEM text but has no matching -----END line: it was cut, as a multi-line secret often is " +
			"at its first line break (store it with its line breaks written as \\n, or as base64 of the PEM).";
	else if (/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/.test(text))
		looks = "looks like a variable reference ($NAME) that nothing substituted: set the variable where it runs.";
	else if (/^(?:[~.]{0,2}\/|[A-Za-z]:\\)?[\w ./\\-]+\.(?:pem|key|der|crt|cer|txt)$/i.test(text))
		looks = "looks like a file path, not the key: pass the file's content (readFileSync(path, 'utf8')).";
	else looks = "is neither PEM text nor base64.";
	return new InvalidKeyError("unrecognized_format", `${what} ${looks} ${KEY_TEXT_FORMS}`);
}

/** The bytes of base64 text (spaces and line breaks ignored), or undefined when it is not base64. */
function decodeBase64(text: string): Uint8Array | undefined {
	const bytes = base64Decode(text.replace(/\s+/g, ""));
	return bytes && bytes.length > 0 ? bytes : undefined;
}

/** The text of bytes that hold a PEM block, or undefined. */
function pemInside(bytes: Uint8Array): string | undefined {
	try {
		const text = utf8Decode(bytes).replace(/^\uFEFF/, "");
		return text.includes("-----BEGIN") ? text : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Reads key text into a PEM block (rebuilt in the standard layout) or DER bytes.
 * @throws InvalidKeyError (`unrecognized_format`) saying what the text looked like and what to give instead, or
 * that it is longer than {@link MAX_KEY_TEXT_LENGTH}.
 */
export function readKeyText(input: string, role: "private" | "public"): ReadKeyText {
	if (input.length > MAX_KEY_TEXT_LENGTH) {
		throw new InvalidKeyError(
			"unrecognized_format",
			`The ${role} key text has ${input.length} characters, over the ${MAX_KEY_TEXT_LENGTH} that any key's text ` +
				`fits in (a 4096-bit private key's PEM has about 3,300): it is not a key. ${KEY_TEXT_FORMS}`,
		);
	}
	const text = unwrap(input);
	const pem = asPem(text, "PEM text");
	if (pem) return pem;
	if (text.includes("-----BEGIN")) throw unreadable(text, role);
	const bytes = decodeBase64(text);
	if (!bytes) throw unreadable(text, role);
	const inner = pemInside(bytes);
	if (inner === undefined) return { encoding: "der", bytes, shape: "base64 (DER bytes)" };
	const decoded = asPem(unwrap(inner), "base64 of a PEM text");
	if (decoded) return decoded;
	throw new InvalidKeyError(
		"unrecognized_format",
		`The ${role} key is base64 of a PEM text that has no matching -----END line: it was cut before it was ` +
			`encoded. ${KEY_TEXT_FORMS}`,
	);
}

/** A backend's "not a key" refusal, with what the text looked like, so the merchant knows which copy went wrong. */
export function withShape(error: unknown, shape: KeyTextShape | undefined): unknown {
	if (shape === undefined || !(error instanceof InvalidKeyError) || error.reason !== "unrecognized_format")
		return error;
	return new InvalidKeyError(
		"unrecognized_format",
		`${error.message} It was read as ${shape}, whose content is not a valid key: it was damaged or ` +
			`cut on the way; copy it again from the key file. ${KEY_TEXT_FORMS}`,
	);
}
