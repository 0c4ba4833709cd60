import { ConfigurationError } from "../../errors/configuration-error.js";
import type { FieldIssue } from "../../errors/request-validation-error.js";
import { toMinorUnits } from "../../money/amount.js";
import type { SandboxFeeOptions } from "./merchant-options.js";

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

/** The fee model of an account. @throws ConfigurationError naming the fee option and its rule. */
export function feeModel(options: SandboxFeeOptions = {}): FeeModel {
	const issues: FieldIssue[] = [];
	const percent = (name: keyof SandboxFeeOptions, fallback: number): number => {
		const value = options[name] ?? fallback;
		if (Number.isFinite(value) && value >= 0 && value <= 100) return Math.round(value * 100);
		issues.push({ field: `fees.${name}`, message: "must be a percentage from 0 to 100" });
		return 0;
	};
	const money = (name: keyof SandboxFeeOptions, fallback: number): number => {
		const value = options[name] ?? fallback;
		if (isMoney(value)) return toMinorUnits(value);
		issues.push({ field: `fees.${name}`, message: "must be an amount of 0 or more with at most 2 decimal places" });
		return 0;
	};
	const days = (name: keyof SandboxFeeOptions, fallback: number): number => {
		const value = options[name] ?? fallback;
		if (Number.isFinite(value) && value >= 0) return value;
		issues.push({ field: `fees.${name}`, message: "must be a number of days, 0 or more" });
		return 0;
	};
	const model: FeeModel = {
		basisPoints: percent("percent", 2.9),
		fixedMinor: money("fixed", 0.3),
		rollingBasisPoints: percent("rollingReservePercent", 0),
		operateMinor: money("operate", 0),
		settlementDelayDays: days("settlementDelayDays", 2),
		rollingReleaseDays: days("rollingReleaseDays", 180),
	};
	if (issues.length > 0) throw new ConfigurationError(issues, "sandbox merchant");
	return model;
}

function isMoney(value: number): boolean {
	try {
		toMinorUnits(value);
		return true;
	} catch {
		return false;
	}
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
