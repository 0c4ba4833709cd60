/**
 * Money is exact: "at most 2 decimal places" is checked on a number's
 * shortest decimal form (what `String(n)` prints), and sums are done in integer
 * hundredths, never in binary floating point.
 */

const TWO_DECIMALS = /^(0|[1-9]\d*)(\.\d{1,2})?$/;

/** True when `amount` is finite, not negative, and its shortest decimal form has at most 2 decimals. */
export function hasAtMostTwoDecimals(amount: number): boolean {
	return Number.isFinite(amount) && TWO_DECIMALS.test(String(amount));
}

/**
 * The amount in integer hundredths (cents for most currencies), read from its
 * decimal form so that `10.1` is exactly 1010.
 * @throws RangeError when the amount has more than 2 decimals or is negative.
 */
export function toMinorUnits(amount: number): number {
	const text = String(amount);
	const match = TWO_DECIMALS.exec(text);
	if (!match) throw new RangeError("The amount must be a non-negative number with at most 2 decimal places.");
	const whole = match[1] ?? "0";
	const fraction = (match[2] ?? ".").slice(1).padEnd(2, "0");
	return Number(whole) * 100 + Number(fraction);
}

/** The JSON number for an integer count of hundredths: 1010 -> 10.1. */
export function fromMinorUnits(minor: number): number {
	if (!Number.isSafeInteger(minor)) throw new RangeError("Minor units must be a safe integer.");
	const sign = minor < 0 ? "-" : "";
	const abs = Math.abs(minor);
	return Number(`${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`);
}
