import { checkoutRequestSchema } from "../../schemas/requests.js";
import { isBrowserForm } from "../authenticate.js";
import { type ApiReply, checkoutFailed, fieldError, MESSAGES, ok } from "../replies.js";
import { isReply, validateFields } from "../validate.js";
import { type ApiContext, verifiedRequest } from "./context.js";
import { sessionRequest } from "./session-request.js";

/** What POST /v2/checkout answers: JSON (API mode) or a browser redirect (DIRECT_POST). */
export type CheckoutReply = ApiReply | { redirect: string; form: boolean } | { failedForm: ApiReply };

/** POST /v2/checkout: a session on the hosted page. */
export async function createCheckout(ctx: ApiContext): Promise<CheckoutReply> {
	const { core } = ctx;
	const verified = verifiedRequest(ctx);
	// A form that could not be read or verified is still a browser's form post: it gets a page too.
	if (isReply(verified))
		return isBrowserForm(ctx.request.headers.get("content-type")) ? { failedForm: verified } : verified;
	const reply = (answer: ApiReply): CheckoutReply => (verified.form ? { failedForm: answer } : answer);
	const checked = validateFields(checkoutRequestSchema({ allowLoopbackHttp: core.allowLoopbackHttp }), verified.fields);
	if (isReply(checked)) return reply(checked);
	const params = checked.value;
	const merchant = verified.merchant;
	const taken = core.orderRefTaken(merchant.merchantId, params.orderRef);
	if (taken) return reply(fieldError("orderRef", "has already been taken"));
	const expiresAt = params.expiresAt === undefined ? undefined : new Date(params.expiresAt);
	const past = expiresAt !== undefined && expiresAt.getTime() <= core.clock.nowMs();
	if (past) return reply(fieldError("expiresAt", "must be a date after now"));
	if (!core.domainAllowed(merchant, params.websiteUrl ?? params.callbackUrl)) {
		return reply(checkoutFailed("The website's domain is not among the merchant's allowed domains."));
	}
	const record = core.createTransaction({
		merchant,
		channel: "checkout",
		orderRef: params.orderRef,
		currency: params.currency,
		amount: params.amount,
		expiresAt,
		request: sessionRequest(params, params.paymentMethod, merchant.feeBySeller),
	});
	const paymentLink = `${ctx.origin}/pay/${record.transactionId}?token=${record.pageToken}`;
	const mode = params.connectionMode ?? (verified.form ? "DIRECT_POST" : "API");
	if (mode === "DIRECT_POST") return { redirect: paymentLink, form: verified.form };
	const { transactionId } = record;
	const fields = { status: "created", transactionId, paymentLink, message: MESSAGES.checkoutCreated };
	return ok(core.signer.flat(fields, merchant.signVersion));
}
