import { luhnValid } from "./luhn.js";

/**
 * Redaction applied to everything the SDK shows: error messages and causes, log
 * lines, hook payloads, `inspect` output. Card numbers keep their first six and
 * last four digits, security codes disappear, key material never appears.
 */

const SECRET_KEYS = /^(cardSecurityCode|cvv|cvc|cvv2|securityCode|privateKey|passphrase|password|secret)$/i;
const CARD_KEYS = /^(cardNumber|pan|card_number)$/i;
const PEM = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(-----END [A-Z0-9 ]+-----|$)/g;
/** 12 to 19 digits, possibly grouped by spaces or dashes. */
const DIGIT_RUN = /(?<!\d)\d(?:[ -]?\d){11,18}(?!\d)/g;
/**
 * A long run of base64 that may be DER key material (signatures are shorter than 700 chars but keys far longer),
 * also inside JSON text that writes "/" as "\/" (PHP's json_encode) and line breaks as "\n". Tried only where a
 * run starts, so a shorter run costs one pass instead of one per character.
 */
const LONG_BASE64 = /(?<![A-Za-z0-9+/]|\\(?=[/nr]))(?:[A-Za-z0-9+]|\\?\/|\\[nr]){900,}={0,2}/g;

export const REDACTED = "[redacted]";

/** `411111******1111` for a 16-digit number; keeps the length visible, as card receipts do. */
export function maskCardNumber(digits: string): string {
	const plain = digits.replace(/[ -]/g, "");
	if (plain.length < 12) return REDACTED;
	return `${plain.slice(0, 6)}${"*".repeat(plain.length - 10)}${plain.slice(-4)}`;
}

/** `"cardSecurityCode":"123"` or `cvv=123` inside JSON or form text: the value goes. */
const SECRET_PAIR = /("?)(cardSecurityCode|cvv2?|cvc|securityCode|passphrase|password|privateKey)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^\s,&}"]+)/gi;
/** `"cardNumber":"..."` inside JSON or form text, whether or not the digits pass Luhn. */
const CARD_PAIR = /("?)(cardNumber|card_number|pan)\1(\s*[:=]\s*)"?([\d -]{6,40})"?/gi;

/** The same pairs inside a JSON string that holds JSON text (`"{\"cvv\":\"123\"}"`): quotes escaped. */
const ESCAPED_SECRET_PAIR = /\\"(cardSecurityCode|cvv2?|cvc|securityCode|passphrase|password|privateKey)\\"(\s*:\s*)(\\"(?:[^"\\]|\\[^"])*\\"|[^\s,}"\\]+)/gi;
const ESCAPED_CARD_PAIR = /\\"(cardNumber|card_number|pan)\\"(\s*:\s*)(?:\\")?([\d -]{6,40})(?:\\")?/gi;

const escapedPair = (key: string, sep: string, value: string) => `\\"${key}\\"${sep}\\"${value}\\"`;

/**
 * Masks card-like digit runs (Luhn-valid, 12-19 digits), removes security codes
 * and secrets written as `key: value` pairs, and removes PEM blocks and long
 * base64 in free text.
 */
export function redactText(text: string): string {
	return text
		.replace(SECRET_PAIR, (_, quote: string, key: string, sep: string) => `${quote}${key}${quote}${sep}"${REDACTED}"`)
		.replace(CARD_PAIR, (_, quote: string, key: string, sep: string, digits: string) => `${quote}${key}${quote}${sep}"${maskCardNumber(digits)}"`)
		.replace(ESCAPED_SECRET_PAIR, (_, key: string, sep: string) => escapedPair(key, sep, REDACTED))
		.replace(ESCAPED_CARD_PAIR, (_, key: string, sep: string, digits: string) => escapedPair(key, sep, maskCardNumber(digits)))
		.replace(PEM, "[redacted key]")
		.replace(LONG_BASE64, "[redacted key]")
		.replace(DIGIT_RUN, (run) => {
			const plain = run.replace(/[ -]/g, "");
			return luhnValid(plain) ? maskCardNumber(plain) : run;
		});
}

/**
 * A deep copy safe to show: card numbers masked, security codes and secrets
 * removed, strings scrubbed with `redactText`. Cycles and depth are bounded.
 */
export function redact<T>(value: T, depth = 0): T {
	if (typeof value === "string") return redactText(value) as T;
	if (typeof value !== "object" || value === null) return value;
	if (depth > 12) return "[…]" as T;
	if (value instanceof Uint8Array) return `[${value.length} bytes]` as T;
	if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1)) as T;
	const out: Record<string, unknown> = {};
	for (const [key, item] of Object.entries(value)) {
		if (SECRET_KEYS.test(key)) continue;
		const shown = CARD_KEYS.test(key) && (typeof item === "string" || typeof item === "number") ? maskCardNumber(String(item)) : redact(item, depth + 1);
		Object.defineProperty(out, key, { value: shown, enumerable: true, writable: true, configurable: true });
	}
	return out as T;
}
