import { luhnValid } from "./luhn.js";

/**
 * Redaction applied to everything the SDK shows: error messages and causes, log
 * lines, hook payloads, `inspect` output. Card numbers keep their first six and
 * last four digits, security codes disappear, key material never appears.
 */

/**
 * The names of secrets, the one list for keys (objects, known secrets) and for text (echoes): each in
 * every spelling an echo may use (camelCase, snake_case, kebab-case), matched in any case.
 */
const SECRET_NAME = "(?:card[_-]?)?security[_-]?code|cvv2?|cvc2?|passphrase|password|private[_-]?key|secret";
/** The names of card numbers, as `SECRET_NAME`. */
const CARD_NAME = String.raw`card[_-]?number|\bpan\b`;
const SECRET_KEYS = new RegExp(`^(?:${SECRET_NAME})$`, "i");
const CARD_KEYS = new RegExp(`^(?:${CARD_NAME})$`, "i");
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

/**
 * What stands between a name and its value in the forms a gateway echoes a request in:
 * JSON (`":"`), JSON inside a JSON string (`\":\"`), form fields (`=`), PHP `print_r`
 * (`] => `), `var_export` (`' => '`), `var_dump` (`"]=>\n  string(3) "`), XML (`>`),
 * YAML-like `key: value`.
 */
const SEPARATOR = String.raw`[\s"'\\\[\]]*(?:=>|[:=>])\s*(?:string\(\d+\)\s*)?`;
/** A value: a JSON string, a JSON string escaped once or more, a PHP single-quoted string, or a bare token. */
const SECRET_VALUE = String.raw`"(?:[^"\\]|\\.)*"|\\+"[^"]*?\\+"|'(?:[^'\\]|\\.)*'|[^\s"'\\<>,;&{}\[\]()]+`;
/** `"cardSecurityCode":"123"`, `cvv=123`, `[card_security_code] => 123`...: the value goes. */
const SECRET_PAIR = new RegExp(`(${SECRET_NAME})(${SEPARATOR})(${SECRET_VALUE})`, "gi");
/**
 * `"cardNumber":"..."` and its echo forms, whether or not the digits pass Luhn. Digits followed by `*` are the
 * start of a number already masked (`411111******1111`), left as they are.
 */
const CARD_PAIR = new RegExp(`(${CARD_NAME})(${SEPARATOR})(\\\\*["']?)(\\d[\\d -]{4,38}\\d)(?![\\d*])`, "gi");

/** The value replaced, its quoting kept: `"[redacted]"`, `\"[redacted]\"`, `'[redacted]'` or `[redacted]`. */
function redactedValue(value: string): string {
	const quote = /^\\*["']/.exec(value)?.[0];
	return quote === undefined ? REDACTED : `${quote}${REDACTED}${quote}`;
}

/** A `CARD_PAIR` match with its digits masked. */
function maskCardPair(_: string, name: string, between: string, quote: string, digits: string): string {
	return `${name}${between}${quote}${maskCardNumber(digits)}`;
}

/**
 * What the client knows about one request's secrets: its card number and
 * security code. Patterns cannot catch every echo of them (a security code is
 * three or four bare digits), so they are removed by value from anything the
 * gateway sends back: raw, inside (escaped) JSON, digits grouped by spaces or dashes.
 */
export class KnownSecrets {
	readonly #fields: Record<string, unknown>;
	/** Compiled on first use: most responses never need them. */
	#rules: Array<readonly [RegExp, string]> | undefined;

	/** @param fields the request's fields before sealing; values under card-number and secret keys are looked for. */
	constructor(fields: Record<string, unknown>) {
		this.#fields = fields;
	}

	/** `text` without any occurrence of the known secrets (card numbers masked, the rest removed). */
	remove(text: string): string {
		if (this.#rules === undefined) {
			this.#rules = [];
			collectSecrets(this.#fields, this.#rules, 0);
		}
		let out = text;
		for (const [pattern, replacement] of this.#rules) out = out.replace(pattern, replacement);
		return out;
	}
}

/** `text` as a regular expression that matches it literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Values shorter than this are not removed by value: they would match by chance. */
const MIN_KNOWN_LENGTH = 3;

function collectSecrets(value: Record<string, unknown>, rules: Array<readonly [RegExp, string]>, depth: number): void {
	if (depth > 4) return;
	for (const [key, item] of Object.entries(value)) {
		if (typeof item === "object" && item !== null && !Array.isArray(item)) {
			collectSecrets(item as Record<string, unknown>, rules, depth + 1);
			continue;
		}
		if (typeof item !== "string" && typeof item !== "number") continue;
		const text = String(item);
		const card = CARD_KEYS.test(key);
		if (!card && !SECRET_KEYS.test(key)) continue;
		const digits = text.replace(/[ -]/g, "");
		if (/^\d+$/.test(digits) && digits.length >= MIN_KNOWN_LENGTH) {
			// Digit boundaries keep longer numbers (amounts, ids) intact; spaces or dashes may group the digits.
			const grouped = [...digits].join("[ -]?");
			rules.push([new RegExp(`(?<!\\d)${grouped}(?!\\d)`, "g"), card ? maskCardNumber(digits) : REDACTED]);
		} else if (text.length >= MIN_KNOWN_LENGTH) {
			const escaped = JSON.stringify(text).slice(1, -1);
			const forms = [...new Set([text, escaped, JSON.stringify(escaped).slice(1, -1)])];
			forms.sort((a, b) => b.length - a.length);
			rules.push([new RegExp(forms.map(literal).join("|"), "g"), REDACTED]);
		}
	}
}

/**
 * Removes the request's known secrets (when given), then masks card-like digit
 * runs (Luhn-valid, 12-19 digits), removes security codes and secrets written
 * as `key: value` pairs in the usual echo formats, and removes PEM blocks and
 * long base64 in free text.
 */
export function redactText(text: string, known?: KnownSecrets): string {
	return (known ? known.remove(text) : text)
		.replace(
			SECRET_PAIR,
			(_, name: string, between: string, value: string) => `${name}${between}${redactedValue(value)}`,
		)
		.replace(CARD_PAIR, maskCardPair)
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
		const shown =
			CARD_KEYS.test(key) && (typeof item === "string" || typeof item === "number")
				? maskCardNumber(String(item))
				: redact(item, depth + 1);
		Object.defineProperty(out, key, { value: shown, enumerable: true, writable: true, configurable: true });
	}
	return out as T;
}
