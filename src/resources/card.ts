import type { CardChargeParams } from "../schemas/params.js";
import { cardChargeParamsSchema } from "../schemas/requests.js";
import { type CardChargeResult, cardChargeDataSchema } from "../schemas/responses.js";
import type { RequestOptions } from "../transport/http.js";
import { type ClientContext, call, describeIssues, offSchema } from "./context.js";
import { validate } from "./validate.js";

const PATH = "/v2/card/api";

/** `gateway.card`: server-to-server card charges (POST /v2/card/api). Needs PCI DSS scope. */
export class CardResource {
	readonly #ctx: ClientContext;

	/** @internal */
	constructor(ctx: ClientContext) {
		this.#ctx = ctx;
	}

	/**
	 * Charges a card server to server. `paymentMethod` and `connectionMode` are
	 * forced to `card` and `API`. The result is a union on `outcome`:
	 * `success`, `redirect` (send the buyer to `redirectUrl` for 3DS) or `pending`.
	 *
	 * What is signed: `transactionId` and `redirectUrl` (the answer's `data`). A
	 * signed `data.url` makes the outcome `redirect` whatever the wrapper says.
	 * Otherwise `success` or `pending` comes from the wrapper's `status`, which the
	 * gateway does not sign, and so does `message`: never fulfil an order on them.
	 * Confirm the final status by the IPN or `transactions.retrieve(transactionId)`
	 * (both signed).
	 *
	 * Never retried: on a timeout or a reset after sending, or an answer that
	 * cannot be verified or read, `OutcomeUnknownError` tells you to reconcile by
	 * `orderRef` first (a retry could charge twice).
	 *
	 * @throws RequestValidationError, GatewayValidationError, ProcessingError, NoS2SProviderError, OutcomeUnknownError...
	 */
	async charge(params: CardChargeParams, options?: RequestOptions): Promise<CardChargeResult> {
		const ctx = this.#ctx;
		const data = validate(ctx, cardChargeParamsSchema(ctx), params, PATH);
		const fields = { merchantId: ctx.merchantId, ...data, paymentMethod: "card", connectionMode: "API" };
		return call(
			ctx,
			{
				endpoint: "card",
				path: PATH,
				kind: "create",
				what: "The card charge",
				ids: { orderRef: data.orderRef },
				fields,
				options,
				alwaysVerify: false,
			},
			(opened, answer) => {
				const parsed = cardChargeDataSchema.safeParse(opened.fields);
				if (!parsed.success) throw offSchema(answer, PATH, describeIssues(parsed.error));
				const status = opened.wrapper?.status ?? opened.fields.status;
				const rawMessage = opened.wrapper ? opened.wrapper.message : opened.fields.message;
				// Unsigned text handed to the merchant: the card data of this request never comes back in it.
				const message = typeof rawMessage === "string" ? answer.secrets.remove(rawMessage) : null;
				const { transactionId, url } = parsed.data;
				// Signed evidence first: a 3DS page in the signed data is a redirect, whatever the unsigned status says.
				if (url !== undefined) return { outcome: "redirect", transactionId, redirectUrl: url, message };
				if (status === "success" || status === "pending") return { outcome: status, transactionId, message };
				if (status === "redirect") throw offSchema(answer, PATH, "a redirect answer has no data.url");
				throw offSchema(answer, PATH, "status is not success, redirect or pending");
			},
		);
	}
}
