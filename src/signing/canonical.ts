import { isPlainObject } from "../internal/plain-object.js";
import { fastObjectForm, fastTextForm } from "./fast-form.js";
import { fail, readTextReferenceForm } from "./text-form.js";

/**
 * How a 2.0 message becomes the string its signature covers. The SDK uses the gateway's
 * reference form (`canonicalString`); pass another function where a gateway signs differently.
 * It receives the message without its `signature`.
 */
export type SignedStringForm = (message: Readonly<Record<string, unknown>>) => string;

/**
 * The reference form and the route that wrote it: the text reader (text-form.ts), which is exact, or the
 * fast route (fast-form.ts), taken only where its proof holds.
 */
export interface RoutedForm {
	form: string;
	route: "fast" | "text";
}

/**
 * The reference form of a message object, in its own key order.
 * @internal the route is for the tests that hold the two routes to each other and to PHP
 */
export function routedObjectForm(message: Record<string, unknown>): RoutedForm {
	if (!isPlainObject(message)) fail([], "a signed message must be a plain JSON object");
	const fast = fastObjectForm(message);
	return "form" in fast
		? { form: fast.form, route: "fast" }
		: { form: readTextReferenceForm(fast.json), route: "text" };
}

/**
 * The reference form of a 2.0 message text (of its `data` when `wrapped`); `parsed`, what `JSON.parse`
 * read from the text, has its signed strings trimmed in place.
 * @internal the route is for the tests that hold the two routes to each other and to PHP
 */
export function routedTextForm(text: string, parsed: Record<string, unknown>, wrapped = false): RoutedForm {
	const form = fastTextForm(text, parsed, wrapped);
	if (form !== undefined) return { form, route: "fast" };
	return { form: readTextReferenceForm(text, parsed, wrapped), route: "text" };
}

/**
 * The reference form of a 2.0 message text (of its `data` when `wrapped`), from a fresh `JSON.parse` of it.
 * For callers that only need the string, such as the doctor.
 * @internal
 */
export function referenceFormOfText(text: string, wrapped = false): string {
	return routedTextForm(text, JSON.parse(text) as Record<string, unknown>, wrapped).form;
}

/**
 * The string that a 2.0 signature covers, in the gateway's reference form: the message
 * without its top-level `signature`; top-level keys in PHP's natural order, nested objects
 * in their own order; every leaf a string as PHP's `trim()` makes it (`true` -> `"1"`,
 * `false` and `null` -> `""`, floats at 14 significant digits); objects keyed `0..n-1`
 * and `{}` as lists; escaped as PHP's `json_encode` (`\/`, `\uXXXX`).
 *
 * @throws MalformedMessageError when `message` is not a plain object or holds a value JSON
 *   cannot carry (a non-finite number, a function, a lone surrogate), naming its path.
 */
export function canonicalString(message: Readonly<Record<string, unknown>>): string {
	return routedObjectForm(message as Record<string, unknown>).form;
}
