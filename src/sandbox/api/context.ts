import type { MerchantAccount } from "../books/merchants.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { type ApiMessage, type Authenticated, authenticate } from "../wire/authentication.js";
import { LIMITS } from "../wire/limits.js";
import type { ReceivedEntry } from "../wire/received-log.js";
import { type ApiResponse, fieldError, isApiResponse, unknownMerchant } from "../wire/spec-responses.js";

/** The merchant a request leads to: the id to name in a refusal, and the account when there is one. */
export type Claimant = { merchantId: string; merchant: MerchantAccount | undefined };

/** One API request as every endpoint handler sees it. */
export interface ApiContext {
	core: SandboxCore;
	/** The body, read once by the router: the message, or the response refusing it. */
	message: ApiMessage | ApiResponse;
	/** The record of this request in `sandbox.received`, which verification completes. */
	received: ReceivedEntry;
	/** The origin links in responses point to (the sandbox's own address). */
	origin: string;
}

/**
 * Verifies a request. The merchant is the one its merchantId names,
 * or, for requests that only name a transaction or refund (D11: queries and
 * refunds carry no merchantId), that one's owner. When neither leads to a
 * merchant, the response is `unknownSubject` (the endpoint's "no such
 * transaction/refund"), or for creation requests a missing merchantId.
 */
export function verifiedRequest(ctx: ApiContext, unknownSubject?: ApiResponse): Authenticated | ApiResponse {
	const { message } = ctx;
	if (isApiResponse(message)) return message;
	const { envelope, claimed } = message;
	const found = findMerchant(ctx.core, claimed);
	if (!found) return unknownSubject ?? fieldError("merchantId", "is required");
	if (!found.merchant) {
		ctx.received.verified = false;
		return unknownMerchant(found.merchantId, ctx.core.merchants.ids());
	}
	const verified = authenticate(envelope, found.merchant, found.merchantId, ctx.core.signer.signedString);
	ctx.received.verified = !isApiResponse(verified);
	return verified;
}

/** The merchant whose key must verify a request with these (unverified) fields. */
export function findMerchant(core: SandboxCore, claimed: Record<string, unknown>): Claimant | undefined {
	const { merchantId, transactionId, refundId } = claimed;
	if (merchantId !== undefined) {
		const merchant = typeof merchantId === "string" ? core.merchants.get(merchantId) : undefined;
		return { merchantId: String(merchantId).slice(0, LIMITS.quotedMerchantId), merchant };
	}
	const owner =
		typeof transactionId === "string"
			? core.ledger.ownerOf({ transactionId })
			: typeof refundId === "string"
				? core.ledger.ownerOf({ refundId })
				: undefined;
	return owner === undefined ? undefined : { merchantId: owner, merchant: core.merchants.get(owner) };
}
