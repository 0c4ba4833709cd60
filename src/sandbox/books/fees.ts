import * as z from "zod/mini";
import { finiteNumber, parseOptions } from "../../internal/options.js";
import { toMinorUnits } from "../../money/amount.js";
import { lazySchema } from "../../schemas/lazy.js";
import type { SandboxFeeOptions } from "./merchant-options.js";
import type { FeeBreakdown } from "./records.js";

export const DAY_MS = 86_400_000;

const PERCENT_RULE = "must be a percentage from 0 to 100";
const MONEY_RULE = "must be an amount of 0 or more with at most 2 decimal places";
const DAYS_RULE = "must be a number of days, 0 or more";

function isMoney(value: number): boolean {
	try {
		toMinorUnits(value);
		return true;
	} catch {
		return false;
	}
}

const percent = (fallback: number) => z._default(finiteNumber(0, 100, PERCENT_RULE), fallback);
const money = (fallback: number) =>
	z._default(z.number({ error: MONEY_RULE }).check(z.refine(isMoney, MONEY_RULE)), fallback);
const days = (fallback: number) => z._default(finiteNumber(0, Number.MAX_VALUE, DAYS_RULE), fallback);

/** The rules and defaults of a merchant's `fees` option. */
export const feeOptionsSchema = () =>
	z.object({
		percent: percent(2.9),
		fixed: money(0.3),
		rollingReservePercent: percent(0),
		operate: money(0),
		settlementDelayDays: days(2),
		rollingReleaseDays: days(180),
	});

/** The fee model with defaults applied and money in minor units. */
export type FeeModel = ReturnType<typeof toFeeModel>;

const feeOptions = lazySchema(() => z.object({ fees: z.prefault(feeOptionsSchema(), {}) }));

/** The fee model of checked fee options, money in minor units. */
export function toFeeModel(fees: z.output<ReturnType<typeof feeOptionsSchema>>) {
	return {
		basisPoints: Math.round(fees.percent * 100),
		fixedMinor: toMinorUnits(fees.fixed),
		rollingBasisPoints: Math.round(fees.rollingReservePercent * 100),
		operateMinor: toMinorUnits(fees.operate),
		settlementDelayDays: fees.settlementDelayDays,
		rollingReleaseDays: fees.rollingReleaseDays,
	};
}

/** The fee model of an account. @throws ConfigurationError naming the fee option and its rule. */
export function feeModel(options: SandboxFeeOptions = {}): FeeModel {
	return toFeeModel(parseOptions(feeOptions, { fees: options }, "sandbox merchant").fees);
}

/**
 * Splits the processing fee between buyer and seller: `feeBySeller` percent of
 * it is the seller's (rounded half up to whole minor units), the rest is the
 * buyer's and is added to what the buyer pays; buyer + seller always equals the fee.
 */
export function computeFees(amountMinor: number, feeBySeller: number, model: FeeModel, paidAt: Date): FeeBreakdown {
	const fee = Math.round((amountMinor * model.basisPoints) / 10_000) + model.fixedMinor;
	const seller = Math.round((fee * feeBySeller) / 100);
	const buyer = fee - seller;
	const rolling = Math.round((amountMinor * model.rollingBasisPoints) / 10_000);
	const paid = amountMinor + buyer;
	return {
		buyer,
		seller,
		rolling,
		operate: model.operateMinor,
		paid,
		settlement: paid - buyer - seller - rolling - model.operateMinor,
		settlementAt: new Date(paidAt.getTime() + model.settlementDelayDays * DAY_MS),
		rollingReleaseAt: new Date(paidAt.getTime() + model.rollingReleaseDays * DAY_MS),
	};
}
