import { luhnValid } from "./luhn.js";

/**
 * Redaction applied to everything the SDK shows: error messages and causes, log
 * lines, hook payloads, `inspect` output, telemetry. Card numbers keep their first six and
 * last four digits, security codes disappear, key material never appears. Telemetry, which
 * leaves the process for a collector, also loses the customer's personal data
 * ({@link redactForTelemetry}).
 */

/**
 * The names of secrets, the one list for keys (objects, known secrets) and for text (echoes): each in
 * every spelling an echo may use (camelCase, snake_case, kebab-case), matched in any case.
 */
const SECRET_NAME = [
	"(?:card[_-]?)?security[_-]?code|cvv2?|cvc2?",
	"passphrase|password|private[_-]?key|secret",
	"api[_-]?key|token|authorization",
].join("|");
/** The names of card numbers, as `SECRET_NAME`. */
const CARD_NAME = String.raw`card[_-]?number|\bpan\b`;
const SECRET_KEYS = new RegExp(`^(?:${SECRET_NAME})$`, "i");
const CARD_KEYS = new RegExp(`^(?:${CARD_NAME})$`, "i");
/** Personal data in a request or a resource: the customer's names (a cardholder's too), email, phone, postal address, IP. */
const PERSONAL_KEYS =
	/^(billing|shipping|customer)|email|phone|address|street|city|postal|zip|firstName|lastName|^name$|holder/i;
/** An email address in free text. */
const EMAIL = /[^\s@"'<>(),;:[\]\\]+@[^\s@"'<>(),;:[\]\\]+\.[a-z]{2,}/gi;
const PEM = /-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(-----END [A-Z0-9 ]+-----|$)/g;
/**
 * Groups of digits joined by one space or dash, or by a slash (spaced or not): `4111 1111 1111 1111 12/30`.
 * Card numbers are looked for inside it ({@link maskCardsInRun}).
 */
const DIGIT_RUN = /\d+(?:(?:[ -]| ?\/ ?)\d+)*/g;
/** What joins two groups of a digit run; a slash ends a card number (an expiry, a date, a path). */
const RUN_SEPARATOR = /([ -]| ?\/ ?)/;
/** Card numbers have 13 (old Visa) to 19 (Maestro, UnionPay) digits. */
const CARD_DIGITS = { min: 13, max: 19 };
/** A bearer token in free text (`Bearer eyJ...`): a token68 per RFC 7235. */
const BEARER = /\b(Bearer\s+)[\w.~+/-]+=*/gi;
/**
 * The password of a URL's userinfo (`https://user:password@host`). The password runs to the authority's last `@`
 * (an unescaped `@` in it happens); both parts are bounded so that text full of `://` stays linear.
 */
const URL_PASSWORD = /(:\/\/[^\s/?#@:]{0,256}:)[^\s/?#]{1,256}@/g;
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
/**
 * A value: a JSON string, a JSON string escaped once or more, a PHP single-quoted string, or a bare token (after
 * the scheme of an `Authorization` header's value, when there is one). A quoted value the text ends inside (a
 * text cut short to be kept) runs to the end.
 */
const SECRET_VALUE = [
	String.raw`"(?:[^"\\]|\\.)*(?:"|\\?$)`,
	String.raw`\\+"[^"]*?(?:\\+"|\\*$)`,
	String.raw`'(?:[^'\\]|\\.)*(?:'|\\?$)`,
	String.raw`(?:(?:Basic|Bearer|Digest)\s+)?[^\s"'\\<>,;&{}\[\]()]+`,
].join("|");
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
	readonly #personal: boolean;
	/** Compiled on first use: most responses never need them. */
	#rules: Array<readonly [RegExp, string]> | undefined;

	/**
	 * @param fields the request's fields before sealing; values under card-number and secret keys are looked for.
	 * @param options.personal look for the values under personal-data keys too (names, email, phone, address, IP).
	 */
	constructor(fields: Record<string, unknown>, options: { personal?: boolean } = {}) {
		this.#fields = fields;
		this.#personal = options.personal ?? false;
	}

	/** `text` without any occurrence of the known secrets (card numbers masked, the rest removed). */
	remove(text: string): string {
		if (this.#rules === undefined) {
			this.#rules = [];
			collectSecrets(this.#fields, this.#rules, 0, this.#personal);
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

function collectSecrets(
	value: Record<string, unknown>,
	rules: Array<readonly [RegExp, string]>,
	depth: number,
	personal: boolean,
): void {
	if (depth > 4) return;
	for (const [key, item] of Object.entries(value)) {
		if (typeof item === "object" && item !== null && !Array.isArray(item)) {
			collectSecrets(item as Record<string, unknown>, rules, depth + 1, personal);
			continue;
		}
		if (typeof item !== "string" && typeof item !== "number") continue;
		const text = String(item);
		const card = CARD_KEYS.test(key);
		if (!card && !SECRET_KEYS.test(key) && !(personal && PERSONAL_KEYS.test(key))) continue;
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
 * A digit run with its first card number masked and everything after that number in the run (a security code,
 * an expiry, more digits) removed. A card number is a Luhn-valid 13-19 digits made of whole groups of the run
 * (groups joined by a space or a dash): the digits a separator splits are where a number may start or end, and
 * digits written together are one number (an id or a timestamp longer than 19 digits is never cut into one). The
 * earliest start wins, then the shortest number, so that a code after the card is never taken as its last digits.
 * Each start tries at most 19 groups: linear in the run's length.
 */
function maskCardsInRun(run: string): string {
	// [group, separator, group, separator, ..., group]
	const parts = run.split(RUN_SEPARATOR);
	const groups = parts.filter((_, index) => index % 2 === 0);
	// The run's digits without separators, and where each group starts in them (one past the last: their end).
	const digits = groups.join("");
	const offsets = [0];
	for (const group of groups) offsets.push((offsets.at(-1) ?? 0) + group.length);
	for (let start = 0; start < groups.length; start++) {
		for (let end = start; end < groups.length; end++) {
			if (end > start && parts[2 * end - 1]?.includes("/")) break;
			const length = (offsets[end + 1] ?? 0) - (offsets[start] ?? 0);
			if (length > CARD_DIGITS.max) break;
			if (length < CARD_DIGITS.min) continue;
			const card = digits.slice(offsets[start], offsets[end + 1]);
			if (!luhnValid(card)) continue;
			const before = parts.slice(0, 2 * start).join("");
			const after = end + 1 < groups.length ? `${parts[2 * end + 1]}${REDACTED}` : "";
			return `${before}${maskCardNumber(card)}${after}`;
		}
	}
	return run;
}

/**
 * Removes the request's known secrets (when given), then removes secrets written as `key: value` pairs in the
 * usual echo formats (security codes, passwords, API keys, tokens, `Authorization` headers), bearer tokens and
 * passwords in URLs, masks card numbers (Luhn-valid, 13-19 digits, also inside a longer run of digits, whose
 * digits after the card number go too), and removes PEM blocks and long base64 in free text.
 */
export function redactText(text: string, known?: KnownSecrets): string {
	return (known ? known.remove(text) : text)
		.replace(URL_PASSWORD, `$1${REDACTED}@`)
		.replace(
			SECRET_PAIR,
			(_, name: string, between: string, value: string) => `${name}${between}${redactedValue(value)}`,
		)
		.replace(BEARER, `$1${REDACTED}`)
		.replace(CARD_PAIR, maskCardPair)
		.replace(PEM, "[redacted key]")
		.replace(LONG_BASE64, "[redacted key]")
		.replace(DIGIT_RUN, maskCardsInRun);
}

/**
 * Text bound for telemetry (a span's exception message, an event's attribute): {@link redactText}, then
 * email addresses removed. Give it the request's secrets built with `personal: true` so that its names,
 * phone and address are removed by value as well: no pattern can recognise them.
 */
export function redactForTelemetry(text: string, known?: KnownSecrets): string {
	return redactText(text, known).replace(EMAIL, REDACTED);
}

const QUOTED = Symbol("merchant-gateway.quoted-gateway-text");
/** What stands in telemetry for the gateway's own words. */
export const GATEWAY_TEXT = "[gateway text]";

/**
 * Marks the gateway's words that `error`'s message quotes (a refusal's message, its field messages): the
 * merchant's error keeps them, telemetry leaves them out. They are unsigned free text from a response body,
 * which may hold anything the gateway knows about the customer, not only what this request sent.
 */
export function quotesGateway<E extends Error>(error: E, texts: readonly string[]): E {
	const quoted = texts.filter((text) => text !== "");
	if (quoted.length > 0) Object.defineProperty(error, QUOTED, { value: quoted, enumerable: false });
	return error;
}

/** An error's message as telemetry shows it: without the gateway's words it quotes, redacted for telemetry. */
export function telemetryMessage(error: unknown, known?: KnownSecrets): string {
	let message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
	const quoted = error instanceof Error ? (error as unknown as Record<symbol, unknown>)[QUOTED] : undefined;
	if (Array.isArray(quoted)) {
		// Longest first: a field message may be part of the refusal's message.
		for (const text of [...quoted].sort((a, b) => b.length - a.length))
			message = message.replaceAll(text, GATEWAY_TEXT);
	}
	return redactForTelemetry(message, known);
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
