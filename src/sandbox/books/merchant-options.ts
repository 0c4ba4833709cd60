import type { PublicKeyLike } from "../../signing/keys.js";
import type { SignVersion } from "../../signing/seal.js";

/** A payment provider behind a merchant account. */
export interface SandboxProvider {
	/** Shown as the transaction descriptor's provider and in `sandbox.transaction(id).attempts`. */
	name: string;
	/**
	 * `s2s` providers take S2S card charges and hosted-page payments; `hpp` ones only hosted-page payments.
	 * @default "s2s"
	 */
	kind?: "s2s" | "hpp" | undefined;
	/** This provider refunds the full amount only (the spec's "five specific providers"). @default false */
	fullRefundOnly?: boolean | undefined;
}

/** The fee model of an account. All money is computed in integer minor units. */
export interface SandboxFeeOptions {
	/** Processing fee, percent of the amount. @default 2.9 */
	percent?: number | undefined;
	/** Fixed processing fee per transaction, in major units. @default 0.3 */
	fixed?: number | undefined;
	/** Rolling reserve held back from the settlement, percent of the amount. @default 0 */
	rollingReservePercent?: number | undefined;
	/** Fixed operational fee per transaction, in major units. @default 0 */
	operate?: number | undefined;
	/** Days from payment to estimationSettlementAt. @default 2 */
	settlementDelayDays?: number | undefined;
	/** Days from payment to fees.estimationRollingReleaseAt. @default 180 */
	rollingReleaseDays?: number | undefined;
}

/** A merchant account registered in the sandbox. */
export interface SandboxMerchantOptions {
	/** The account's merchantId (1-50 characters). */
	merchantId: string;
	/** The merchant's registered public key(s): requests must verify with one of them. */
	publicKey: PublicKeyLike | readonly PublicKeyLike[];
	/** Signing version of the account: responses, IPNs and callbacks use it. Requests may use either. @default "2.0" */
	signVersion?: SignVersion | undefined;
	/**
	 * `auto` processes refunds at once; `manual` holds them until `sandbox.approveRefund(id)` or `rejectRefund(id)`.
	 * @default "auto"
	 */
	refundApproval?: "auto" | "manual" | undefined;
	/**
	 * Providers in cascade order. Only `hpp` providers means S2S charges get the no-S2S-provider error.
	 * @default two S2S providers, "Sandbox Acquirer A" and "Sandbox Acquirer B"
	 */
	providers?: readonly SandboxProvider[] | undefined;
	/** Retry a declined S2S charge at the next S2S provider (only the final outcome is visible). @default true */
	autoCascade?: boolean | undefined;
	/** Percent of the processing fee the merchant pays when a request omits feeBySeller. @default 100 */
	feeBySeller?: number | undefined;
	/** Fee model. @default see SandboxFeeOptions */
	fees?: SandboxFeeOptions | undefined;
	/** Company name shown on the hosted page when a request has no brandName. @default "Sandbox Merchant" */
	brandName?: string | undefined;
	/** Logo URL shown on the hosted page when a request has no logoSource. @default none */
	logoSource?: string | undefined;
	/** Hosts allowed as websiteUrl (or callbackUrl when websiteUrl is omitted); subdomains included. @default any host */
	allowedDomains?: readonly string[] | undefined;
	/** Transaction descriptor. @default "SANDBOX*" + brandName, 22 characters at most */
	descriptor?: string | undefined;
}

/** The providers of an account that names none. */
export const DEFAULT_PROVIDERS: readonly SandboxProvider[] = [
	{ name: "Sandbox Acquirer A" },
	{ name: "Sandbox Acquirer B" },
];
