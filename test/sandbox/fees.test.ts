import fc from "fast-check";
import { expect, test } from "vitest";
import { ConfigurationError } from "../../src/index.js";
import { computeFees, feeModel } from "../../src/sandbox/books/fees.js";

test("fees always add up: buyer + seller = fee, paid = amount + buyer, settlement = paid - every deduction", () => {
	fc.assert(
		fc.property(
			fc.integer({ min: 100, max: 100_000_000 }),
			fc.integer({ min: 0, max: 100 }),
			fc.integer({ min: 0, max: 1000 }).map((bp) => bp / 100),
			fc.integer({ min: 0, max: 500 }).map((minor) => minor / 100),
			fc.integer({ min: 0, max: 2000 }).map((bp) => bp / 100),
			(amount, feeBySeller, percent, fixed, rollingReservePercent) => {
				const model = feeModel({ percent, fixed, rollingReservePercent, operate: 0.05 });
				const fees = computeFees(amount, feeBySeller, model, new Date("2026-11-22T00:00:00Z"));
				const fee = Math.round((amount * Math.round(percent * 100)) / 10_000) + Math.round(fixed * 100);
				expect(fees.buyer + fees.seller).toBe(fee);
				expect(fees.paid).toBe(amount + fees.buyer);
				expect(fees.settlement).toBe(fees.paid - fees.buyer - fees.seller - fees.rolling - fees.operate);
				for (const part of [fees.buyer, fees.seller, fees.rolling, fees.operate, fees.paid])
					expect(Number.isSafeInteger(part) && part >= 0).toBe(true);
				if (feeBySeller === 100) expect(fees.buyer).toBe(0);
				if (feeBySeller === 0) expect(fees.seller).toBe(0);
			},
		),
	);
});

test("settlement and rolling release dates follow the model", () => {
	const fees = computeFees(
		10_000,
		50,
		feeModel({ settlementDelayDays: 3, rollingReleaseDays: 30 }),
		new Date("2026-11-22T12:00:00Z"),
	);
	expect(fees.settlementAt.toISOString()).toBe("2026-11-25T12:00:00.000Z");
	expect(fees.rollingReleaseAt.toISOString()).toBe("2026-12-22T12:00:00.000Z");
});

test("a percentage outside 0-100 is refused with the option's name", () => {
	expect(() => feeModel({ percent: 120 })).toThrow(/fees.percent: must be a percentage from 0 to 100/);
	expect(() => feeModel({ fixed: 0.001 })).toThrow(ConfigurationError);
	expect(() => feeModel({ fixed: 0.001 })).toThrow(/fees.fixed: must be an amount of 0 or more with at most 2 decimal/);
	expect(() => feeModel({ settlementDelayDays: -1 })).toThrow(/fees.settlementDelayDays/);
});
