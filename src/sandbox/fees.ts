import { toMinorUnits } from "../money/amount.js";
import type { SandboxFeeOptions } from "./options.js";

const DAY_MS = 86_400_000;

/** Fees of one paid transaction, in minor units, and the dates that go with them. */
export interface FeeBreakdown {
	buyer: number;
	seller: number;
	rolling: number;
	operate: number;
	/** amount + buyer fee: what the buyer was charged. */
	paid: number;
	/** paid - buyer - seller - rolling - operate: what the merchant receives. */
	settlement: number;
	settlementAt: Date;
	rollingReleaseAt: Date;
}

/** The fee model with defaults applied and money in minor units. */
export interface FeeModel {
	basisPoints: number;
	fixedMinor: number;
	rollingBasisPoints: number;
	operateMinor: number;
	settlementDelayDays: number;
	rollingReleaseDays: number;
}

function checkedPercent(value: number, name: string): number {
	if (!Number.isFinite(value) || value < 0 || value > 100)
		throw new RangeError(`fees.${name} must be a percentage from 0 to 100.`);
	return Math.round(value * 100);
}

export function feeModel(options: SandboxFeeOptions = {}): FeeModel {
	return {
		basisPoints: checkedPercent(options.percent ?? 2.9, "percent"),
		fixedMinor: toMinorUnits(options.fixed ?? 0.3),
		rollingBasisPoints: checkedPercent(options.rollingReservePercent ?? 0, "rollingReservePercent"),
		operateMinor: toMinorUnits(options.operate ?? 0),
		settlementDelayDays: options.settlementDelayDays ?? 2,
		rollingReleaseDays: options.rollingReleaseDays ?? 180,
	};
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
