import type { ClientContext } from "./context.js";

/**
 * `merchantId` for the requests whose spec table has none (transaction query,
 * refund, refund query; D11): absent unless `alwaysSendMerchantId` asks for it.
 */
export function optionalMerchantId(ctx: ClientContext): { merchantId?: string } {
	return ctx.alwaysSendMerchantId ? { merchantId: ctx.merchantId } : {};
}

/** Two ULIDs name the same thing whatever their case (the gateway writes them in lowercase; D12). */
export function sameId(a: string, b: string): boolean {
	return a.toLowerCase() === b.toLowerCase();
}
