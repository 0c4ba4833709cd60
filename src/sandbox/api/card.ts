import { cardChargeRequestSchema } from "../../schemas/requests.js";
import { decideCharge } from "../charge.js";
import { type ApiReply, fieldError, MESSAGES, noS2SProvider, ok, processingFailed } from "../replies.js";
import { isReply, validateFields } from "../validate.js";
import { type ApiContext, verifiedRequest } from "./context.js";
import { sessionRequest } from "./session-request.js";

/** POST /v2/card/api: an S2S card charge decided by the test card table. */
export async function chargeCard(ctx: ApiContext): Promise<ApiReply> {
	const { core } = ctx;
	const verified = verifiedRequest(ctx);
	if (isReply(verified)) return verified;
	const checked = validateFields(
		cardChargeRequestSchema({ allowLoopbackHttp: core.allowLoopbackHttp }),
		verified.fields,
	);
	if (isReply(checked)) return checked;
	const params = checked.value;
	const merchant = verified.merchant;
	const providers = merchant.providers.filter((p) => p.kind === "s2s");
	if (providers.length === 0) return noS2SProvider();
	if (core.orderRefTaken(merchant.merchantId, params.orderRef)) return fieldError("orderRef", "has already been taken");
	if (!core.domainAllowed(merchant, params.websiteUrl ?? params.callbackUrl)) {
		const field = params.websiteUrl ? "websiteUrl" : "callbackUrl";
		return fieldError(field, "must be on one of the merchant's allowed domains");
	}
	const record = core.createTransaction({
		merchant,
		channel: "s2s",
		orderRef: params.orderRef,
		currency: params.currency,
		amount: params.amount,
		expiresAt: undefined,
		request: sessionRequest(params, "card", merchant.feeBySeller),
	});
	const card = {
		number: params.cardNumber,
		month: params.cardMonth,
		year: params.cardYear,
		name: `${params.billingFirstName} ${params.billingLastName}`,
	};
	const decision = decideCharge(card, providers, merchant.autoCascade, core.now());
	core.applyDecision(record, decision, card);
	const transactionId = record.transactionId;
	const version = merchant.signVersion;
	switch (decision.kind) {
		case "approved":
			return ok(core.signer.wrapped("success", MESSAGES.chargeCompleted, { transactionId }, version));
		case "declined":
			return processingFailed(decision.httpStatus, decision.message, transactionId);
		case "three_ds": {
			const url = `${ctx.origin}/3ds/${transactionId}?token=${record.pageToken}`;
			return ok(core.signer.wrapped("redirect", MESSAGES.chargeRedirect, { transactionId, url }, version));
		}
		case "pending":
			return ok(core.signer.wrapped("pending", "pending", { transactionId }, version));
	}
}
