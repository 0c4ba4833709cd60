import { type Authenticated, authenticate, claimedFields, readEnvelope } from "../authenticate.js";
import type { SandboxCore } from "../core.js";
import type { SandboxRequest } from "../exchange.js";
import type { ApiReply } from "../replies.js";
import type { MerchantAccount } from "../state.js";
import { isReply } from "../validate.js";

/** One request as every API rule sees it. */
export interface ApiContext {
	core: SandboxCore;
	request: SandboxRequest;
	/** The origin links in answers point to (the sandbox's own address). */
	origin: string;
}

/**
 * Reads and verifies a request. The merchant is the one its merchantId names,
 * or, for requests that only name a transaction or refund, that one's owner.
 */
export async function verifiedRequest(ctx: ApiContext, allowForm: boolean): Promise<Authenticated | ApiReply> {
	const envelope = await readEnvelope(ctx.request, allowForm);
	if (isReply(envelope)) return envelope;
	const claimed = claimedFields(envelope);
	if (isReply(claimed)) return claimed;
	return authenticate(envelope, findMerchant(ctx, claimed));
}

function findMerchant(ctx: ApiContext, claimed: Record<string, unknown>): MerchantAccount | undefined {
	const { core } = ctx;
	if (typeof claimed.merchantId === "string") return core.merchants.get(claimed.merchantId);
	let owner: string | undefined;
	if (typeof claimed.transactionId === "string") owner = core.transactions.get(claimed.transactionId)?.merchantId;
	else if (typeof claimed.refundId === "string") {
		const refund = core.refunds.get(claimed.refundId);
		owner = refund && core.transactions.get(refund.transactionId)?.merchantId;
	}
	return owner === undefined ? undefined : core.merchants.get(owner);
}
