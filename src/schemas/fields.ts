import * as z from "zod/mini";
import { luhnValid } from "../internal/luhn.js";
import { hasAtMostTwoDecimals } from "../money/amount.js";
import { isCountryCode, isCurrencyCode } from "./iso.js";

/**
 * Field builders for the request schemas: one rule of the spec each, with a
 * message that names the rule and never repeats the value.
 */

/** "is required" when the key is absent, otherwise what the type must be. */
export const typeError =
	(expected: string) =>
	(issue: { input?: unknown }): string =>
		issue.input === undefined ? "is required" : `must be ${expected}`;

/** A string, "is required" when absent. */
export const string = () => z.string({ error: typeError("a string") });

/** Characters as a person counts them (Unicode code points, like PHP's mb_strlen). */
export function characterCount(text: string): number {
	let count = 0;
	for (const _ of text) count++;
	return count;
}

/** `min` to `max` characters. UTF-16 length >= code points, so counting is only needed near the limits. */
function withinLength(value: string, min: number, max: number): boolean {
	if (value.length <= max && value.length >= min * 2) return true;
	const length = characterCount(value);
	return length >= min && length <= max;
}

/** A string of `min` to `max` characters. `min` 1 also means "not empty". */
export function text(min: number, max: number) {
	const rule =
		min <= 1
			? min === 1
				? `must be 1 to ${max} characters`
				: `must be at most ${max} characters`
			: `must be ${min} to ${max} characters`;
	return string().check(z.refine((value) => withinLength(value, min, max), rule));
}

/** A JSON number with at most 2 decimals on its shortest decimal form, at least `minimum`. */
export function amount(minimum: number) {
	return z.number({ error: typeError("a number") }).check(
		z.superRefine((value, ctx) => {
			if (!Number.isFinite(value)) {
				ctx.addIssue({ code: "custom", message: "must be a finite number" });
				return;
			}
			if (value < minimum) ctx.addIssue({ code: "custom", message: `must be at least ${minimum}` });
			if (!hasAtMostTwoDecimals(Math.abs(value)))
				ctx.addIssue({ code: "custom", message: "must have at most 2 decimal places" });
		}),
	);
}

export const currencyCode = () =>
	string().check(z.refine(isCurrencyCode, "must be an ISO 4217 currency code such as EUR (three capital letters)"));

export const countryCode = () =>
	string().check(
		z.refine(isCountryCode, "must be an ISO 3166-1 alpha-2 country code such as US (two capital letters)"),
	);

/** Loopback hosts: `localhost`, `127.0.0.0/8`, `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
	return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function parseUrl(value: string): URL | undefined {
	try {
		return new URL(value);
	} catch {
		return undefined;
	}
}

/** Why `value` is not an acceptable redirect or notification URL, or undefined when it is. */
function secureUrlProblem(value: string, allowLoopbackHttp: boolean): string | undefined {
	if (!withinLength(value, 1, 300)) return "must be 1 to 300 characters";
	const url = parseUrl(value);
	if (!url) return "must be an absolute URL";
	if (url.protocol === "https:") return undefined;
	if (url.protocol === "http:" && allowLoopbackHttp && isLoopbackHost(url.hostname)) return undefined;
	return allowLoopbackHttp
		? "must be an https URL (http only for localhost, 127.0.0.0/8 or [::1])"
		: "must be an https URL";
}

/**
 * A redirect or notification URL: 1-300 characters, `https:`. Plain
 * `http:` passes only for loopback hosts and only when `allowLoopbackHttp` is set.
 */
export function secureUrl(allowLoopbackHttp: boolean) {
	// One check for length and scheme, its message the problem found.
	const problem = (value: string) => secureUrlProblem(value, allowLoopbackHttp);
	return string().check(
		z.refine((value) => problem(value) === undefined, { error: (issue) => problem(String(issue.input)) }),
	);
}

/** An absolute http(s) URL of at most `max` characters (websiteUrl, transaction documents). */
export function webUrl(max: number) {
	const base = max === Number.MAX_SAFE_INTEGER ? nonEmpty() : text(1, max);
	return base.check(
		z.refine((value) => {
			const url = parseUrl(value);
			return url !== undefined && (url.protocol === "https:" || url.protocol === "http:");
		}, "must be an absolute http or https URL"),
	);
}

/** An ISO 8601 date-time with a time zone (`Z` or an offset). */
export function isoDateTime() {
	const dateTime = z.iso.datetime({ offset: true });
	const rule = "must be an ISO 8601 date-time with a time zone, such as 2026-11-21T10:00:00Z";
	return string().check(z.refine((value) => dateTime.safeParse(value).success, rule));
}

export function ipAddress() {
	const ipv4 = z.ipv4();
	const ipv6 = z.ipv6();
	const isIp = (value: string) => ipv4.safeParse(value).success || ipv6.safeParse(value).success;
	return string().check(z.refine(isIp, "must be an IPv4 or IPv6 address"));
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;
/** A gateway id (ULID: 26 Crockford base32 characters). */
export const ulid = () =>
	string().check(z.refine((value) => ULID.test(value), "must be a ULID (26 characters of Crockford base32)"));

const COLOR = /^(#[0-9a-f]{3,8}|rgba?\(\s*[\d.%\s,/]+\)|[a-z]{3,30})$/i;
/** Up to three colors joined by `---`; each a name, a HEX code or rgb()/rgba(). */
export const colorMode = () =>
	text(1, 255).check(
		z.refine((value) => {
			const parts = value.split("---");
			return parts.length <= 3 && parts.every((part) => COLOR.test(part.trim()));
		}, "must be up to 3 colors (names, HEX or RGBA) separated by ---"),
	);

export const percent = () =>
	z
		.number({ error: typeError("a number") })
		.check(z.refine((value) => Number.isFinite(value) && value >= 0 && value <= 100, "must be a number from 0 to 100"));

/**
 * A plain object the JSON text can carry as is: zod's plain-object test, no
 * symbol keys, no own `__proto__` key. Checked in place rather than copied key
 * by key (a record schema's copy was a sixth of a checkout's validation).
 */
function isJsonObject(value: unknown): value is Record<string, unknown> {
	return (
		z.util.isPlainObject(value) &&
		Object.getOwnPropertySymbols(value).length === 0 &&
		!Object.hasOwn(value, "__proto__")
	);
}

/** A free key-value JSON object (not an array, not null, not a class instance). */
export const metadata = () => z.custom<Record<string, unknown>>(isJsonObject, { error: typeError("a JSON object") });

/** A non-empty string with no length limit in the spec. */
export const nonEmpty = () => string().check(z.minLength(1, "must not be empty"));

/** Supporting documents of an order. */
export const transactionDocuments = () =>
	z.array(
		z.object(
			{
				/** Kind of document, such as `invoice` (not empty). */
				type: nonEmpty(),
				/** Absolute http(s) URL of the document. */
				url: webUrl(Number.MAX_SAFE_INTEGER),
			},
			{ error: typeError("an object with type and url") },
		),
		{ error: typeError("an array of {type, url} objects") },
	);

/** An ordered list of payment method types. */
export const paymentTypeList = () => z.array(nonEmpty(), { error: typeError("an array of strings") });

export const cardNumber = () =>
	string().check(
		z.superRefine((value, ctx) => {
			if (!/^\d{12,19}$/.test(value)) {
				ctx.addIssue({ code: "custom", message: "must be 12 to 19 digits, without spaces" });
				return;
			}
			if (!luhnValid(value)) ctx.addIssue({ code: "custom", message: "fails the Luhn check digit" });
		}),
	);

const digitsString = (pattern: RegExp, rule: string) => string().check(z.regex(pattern, rule));
export const cardMonth = () => digitsString(/^(0[1-9]|1[0-2])$/, "must be two digits from 01 to 12");
export const cardYear = () => digitsString(/^\d{2}$/, "must be two digits, such as 29");
export const cardSecurityCode = () => digitsString(/^\d{3,4}$/, "must be 3 or 4 digits");
