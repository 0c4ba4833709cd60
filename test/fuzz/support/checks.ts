import { isDeepStrictEqual } from "node:util";
import { GatewayError } from "../../../src/index.js";
import { canonicalString } from "../../../src/signing/index.js";
import { phpNumberString, phpTrim } from "../../../src/signing/php.js";
import { sameSignedContent } from "../../support/signed-content.js";

/** An SDK error class, as the targets list what they may throw. */
// biome-ignore lint/suspicious/noExplicitAny: error classes take various constructor arguments
export type ErrorClass = abstract new (...args: any[]) => GatewayError;

/** Thrown by a check: the property failed (fast-check reports it with the case). */
export class PropertyViolation extends Error {}

function fail(message: string): never {
	throw new PropertyViolation(message);
}

/**
 * Runs `fn`; returns its result, or `undefined` when it threw one of `allowed`.
 * Anything else thrown (a TypeError, a RangeError, a plain Error, another SDK error) fails the property.
 */
export function typedOutcome<T>(
	fn: () => T,
	allowed: readonly ErrorClass[],
): { ok: true; value: T } | { ok: false; error: GatewayError } {
	try {
		return { ok: true, value: fn() };
	} catch (error) {
		return { ok: false, error: expectAllowed(error, allowed) };
	}
}

/** The asynchronous `typedOutcome`. */
export async function typedOutcomeAsync<T>(
	fn: () => Promise<T>,
	allowed: readonly ErrorClass[],
): Promise<{ ok: true; value: T } | { ok: false; error: GatewayError }> {
	try {
		return { ok: true, value: await fn() };
	} catch (error) {
		return { ok: false, error: expectAllowed(error, allowed) };
	}
}

export function expectAllowed(error: unknown, allowed: readonly ErrorClass[]): GatewayError {
	if (error instanceof PropertyViolation) throw error;
	if (error instanceof GatewayError && allowed.some((kind) => error instanceof kind)) return error;
	const what = error instanceof Error ? `${error.constructor.name}: ${error.message}` : `a non-Error: ${String(error)}`;
	const names = allowed.map((kind) => kind.name).join(", ");
	const failure = new PropertyViolation(`threw ${what} (allowed: ${names})`);
	failure.cause = error;
	throw failure;
}

const PROTOTYPES: Array<[string, object]> = [
	["Object.prototype", Object.prototype],
	["Array.prototype", Array.prototype],
	["Function.prototype", Function.prototype],
	["String.prototype", String.prototype],
];
const BASELINE = new Map(PROTOTYPES.map(([name, proto]) => [name, Reflect.ownKeys(proto).length]));

/** No built-in prototype gained (or lost) a property: checked after every case. */
export function expectNoPollution(): void {
	for (const [name, proto] of PROTOTYPES) {
		const count = Reflect.ownKeys(proto).length;
		if (count !== BASELINE.get(name))
			fail(`${name} has ${count} own properties, ${BASELINE.get(name)} before: prototype pollution`);
	}
}

/** Every object handed out is a plain object or array, its data in own properties (a `__proto__` key stays a key). */
export function expectPlainData(value: unknown, path = "(out)"): void {
	if (typeof value !== "object" || value === null) return;
	const proto = Object.getPrototypeOf(value);
	if (Array.isArray(value)) {
		if (proto !== Array.prototype) fail(`${path} is an array with another prototype`);
		value.forEach((item, i) => {
			expectPlainData(item, `${path}[${i}]`);
		});
		return;
	}
	if (proto !== Object.prototype && proto !== null)
		fail(`${path} has a prototype other than Object.prototype: a __proto__ key became a prototype`);
	for (const key of Reflect.ownKeys(value)) {
		const descriptor = Object.getOwnPropertyDescriptor(value, key);
		if (typeof key === "symbol" || !descriptor || !("value" in descriptor))
			fail(`${path} has an accessor or symbol key`);
		expectPlainData(descriptor.value, `${path}.${key}`);
	}
}

/** Under 2.0 every string handed out is trimmed as the reference form trims it (padding is not signed). */
export function expectTrimmedStrings(value: unknown, path = "(out)"): void {
	if (typeof value === "string") {
		if (phpTrim(value) !== value)
			fail(`${path} comes back padded (${JSON.stringify(value)}): the signature covers it trimmed`);
		return;
	}
	if (typeof value !== "object" || value === null) return;
	for (const [key, item] of Object.entries(value)) expectTrimmedStrings(item, `${path}.${key}`);
}

/** What the 2.0 reference form makes of one leaf; strings as they are, so a padded one differs from the signed one. */
function leafString(value: unknown): string | undefined {
	if (typeof value === "string") return value;
	if (typeof value === "number") return phpNumberString(JSON.stringify(value));
	if (typeof value === "boolean") return value ? "1" : "";
	if (value === null) return "";
	return undefined;
}

/** How PHP writes a number as a string: digits, a fraction, PHP's exponent form. */
const PHP_NUMBER = /^-?[0-9]+(?:\.[0-9]+)?(?:E[+-][0-9]+)?$/;

/**
 * A number handed out for a signed number leaf, to PHP's 14 significant digits: a literal no
 * JavaScript number holds exactly (beyond 2^53, `1.0e+17`, `-0.0`) comes back as the nearest one.
 */
function sameNumber(value: unknown, signed: unknown): boolean {
	if (typeof value !== "number" || typeof signed !== "string" || !PHP_NUMBER.test(signed)) return false;
	return value.toPrecision(14) === Number(signed).toPrecision(14);
}

/**
 * `value` (a typed result, whose schema may drop fields) holds only what the 2.0 signed
 * string covers: `signed` is that string parsed, every leaf a string, and each value
 * handed out must sign as the signed leaf at its path.
 */
export function expectCoveredBy20(value: unknown, signed: unknown, path = "(out)"): void {
	const leaf = leafString(value);
	if (leaf !== undefined || typeof value !== "object" || value === null) {
		if (leaf === undefined || !(signed === leaf || sameNumber(value, signed)))
			fail(`${path} is ${JSON.stringify(value)} but the signature covers ${JSON.stringify(signed)}`);
		return;
	}
	if (Array.isArray(value)) {
		if (!Array.isArray(signed) || signed.length !== value.length)
			fail(`${path} is a list the signature does not cover as such`);
		value.forEach((item, i) => {
			expectCoveredBy20(item, signed[i], `${path}[${i}]`);
		});
		return;
	}
	// The reference form writes an object keyed 0..n-1 (or empty) as a list; a schema may have dropped members.
	if (typeof signed !== "object" || signed === null) fail(`${path} is an object the signature does not cover as such`);
	for (const key of Object.keys(value)) {
		const slot = Array.isArray(signed) ? (/^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : -1) : key;
		if (!Object.hasOwn(signed, slot)) fail(`${path}.${key} is handed out but not signed`);
		expectCoveredBy20(
			(value as Record<string, unknown>)[key],
			(signed as Record<string | number, unknown>)[slot],
			`${path}.${key}`,
		);
	}
}

/** `value` (a typed result) holds only what the 2.1 payload says, values unchanged. */
export function expectCoveredBy21(value: unknown, signed: unknown, path = "(out)"): void {
	if (typeof value !== "object" || value === null) {
		if (!isDeepStrictEqual(value, signed))
			fail(`${path} is ${JSON.stringify(value)} but the payload says ${JSON.stringify(signed)}`);
		return;
	}
	if (Array.isArray(value)) {
		if (!Array.isArray(signed) || signed.length !== value.length)
			fail(`${path} is a list the payload does not hold as such`);
		value.forEach((item, i) => {
			expectCoveredBy21(item, signed[i], `${path}[${i}]`);
		});
		return;
	}
	if (typeof signed !== "object" || signed === null || Array.isArray(signed))
		fail(`${path} is an object the payload does not hold as such`);
	for (const key of Object.keys(value)) {
		if (!Object.hasOwn(signed, key)) fail(`${path}.${key} is handed out but not in the payload`);
		expectCoveredBy21(
			(value as Record<string, unknown>)[key],
			(signed as Record<string, unknown>)[key],
			`${path}.${key}`,
		);
	}
}

/** What a validly signed message signs: the 2.0 reference form, or the 2.1 payload text. */
export type Signed = { version: "2.0"; signedString: string } | { version: "2.1"; payload: string };

/**
 * Fields handed out by a verifier that accepted a mutation of `origin`: a signature cannot
 * be forged, so they must be exactly what `origin` signed. 2.0: the same reference form
 * (nested member order aside, see sameSignedContent), strings trimmed; 2.1: the payload
 * parsed. (Signed by another version than it was sealed in only when both versions sign the
 * very same text.)
 */
export function expectSignedContent(fields: Record<string, unknown>, version: "2.0" | "2.1", origin: Signed): void {
	expectPlainData(fields);
	const originText = origin.version === "2.0" ? origin.signedString : origin.payload;
	if (version === "2.0") {
		const handedOut = canonicalString(fields);
		if (!sameSignedContent(handedOut, originText))
			fail(`accepted under 2.0, but what it hands out signs as ${handedOut}, not ${originText}`);
		expectTrimmedStrings(fields);
		if (Object.hasOwn(fields, "signature")) fail("the signature is handed out as a field");
		return;
	}
	if (!isDeepStrictEqual(fields, JSON.parse(originText)))
		fail(`accepted under 2.1, but hands out ${JSON.stringify(fields)}, not the payload ${originText}`);
}

/** A typed result (schema applied), verified under `version`, holds only content `origin` signed. */
export function expectCoveredBySigned(value: unknown, version: "2.0" | "2.1", origin: Signed): void {
	expectPlainData(value);
	const signed = JSON.parse(origin.version === "2.0" ? origin.signedString : origin.payload);
	if (version === "2.0") expectCoveredBy20(value, signed);
	else expectCoveredBy21(value, signed);
}

export function violation(message: string): never {
	fail(message);
}
