import { type Authenticated, authenticate, claimedFields, readEnvelope } from "../authenticate.js";
import type { SandboxCore } from "../core.js";
import type { SandboxRequest } from "../exchange.js";
import { type ApiReply, fieldError } from "../replies.js";
import type { MerchantAccount } from "../state.js";
import { isReply } from "../validate.js";

type Found = Authenticated | ApiReply;
/** The merchant a request leads to: the id to name in a refusal, and the account when there is one. */
type Claimant = { merchantId: string; merchant: MerchantAccount | undefined };

/** One request as every API rule sees it. */
export interface ApiContext {
	core: SandboxCore;
	request: SandboxRequest;
	/** The origin links in answers point to (the sandbox's own address). */
	origin: string;
}

/**
 * Reads and verifies a request. The merchant is the one its merchantId names,
 * or, for requests that only name a transaction or refund (D11: queries and
 * refunds carry no merchantId), that one's owner. When neither leads to a
 * merchant, the answer is `unknownSubject` (the endpoint's "no such
 * transaction/refund"), or for creation requests a missing merchantId.
 */
export async function verifiedRequest(ctx: ApiContext, allowForm: boolean, unknownSubject?: ApiReply): Promise<Found> {
	const envelope = await readEnvelope(ctx.request, allowForm);
	if (isReply(envelope)) return envelope;
	const claimed = claimedFields(envelope);
	if (isReply(claimed)) return claimed;
	const found = findMerchant(ctx, claimed);
	if (!found) return unknownSubject ?? fieldError("merchantId", "is required");
	return authenticate(envelope, found.merchant, found.merchantId, ctx.core.signer.signedString);
}

function findMerchant(ctx: ApiContext, claimed: Record<string, unknown>): Claimant | undefined {
	const { core } = ctx;
	const { merchantId, transactionId, refundId } = claimed;
	if (merchantId !== undefined) {
		const merchant = typeof merchantId === "string" ? core.merchants.get(merchantId) : undefined;
		return { merchantId: String(merchantId).slice(0, 100), merchant };
	}
	let owner: string | undefined;
	if (typeof transactionId === "string") owner = core.transaction(transactionId)?.merchantId;
	else if (typeof refundId === "string") {
		const refund = core.refund(refundId);
		owner = refund && core.transaction(refund.transactionId)?.merchantId;
	}
	return owner === undefined ? undefined : { merchantId: owner, merchant: core.merchants.get(owner) };
}
