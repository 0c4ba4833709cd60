/** The sandbox's limits, in one place. */
export const LIMITS = {
	/** The largest request body the sandbox reads; a larger one gets HTTP 413. */
	bodyBytes: 1_048_576,
	/** The largest hosted-page form it reads; a larger one reads as an empty form. */
	pageFormBytes: 65_536,
	/** How many received requests `sandbox.received` keeps (the oldest go first). */
	receivedRequests: 100,
	/** The longest merchantId a refusal message quotes. */
	quotedMerchantId: 100,
} as const;
