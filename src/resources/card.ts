import type { CardChargeParams } from "../schemas/params.js";
import type { CardChargeResult } from "../schemas/responses.js";
import type { RequestOptions } from "../transport/http.js";
import type { ClientContext } from "./context.js";
import { callEndpoint } from "./pipeline.js";

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
	 * What is signed: `transactionId` and `redirectUrl` (the response's `data`). A
	 * signed `data.url` makes the outcome `redirect` whatever the wrapper says.
	 * Otherwise `success` or `pending` comes from the wrapper's `status`, which the
	 * gateway does not sign, and so does `message`: never fulfil an order on them.
	 * Confirm the final status by the IPN or `transactions.retrieve(transactionId)`
	 * (both signed).
	 *
	 * Never retried: an `OutcomeUnknownError` says to reconcile by `orderRef` first.
	 *
	 * @throws RequestValidationError, GatewayValidationError, ProcessingError, NoS2SProviderError, OutcomeUnknownError...
	 */
	async charge(params: CardChargeParams, options?: RequestOptions): Promise<CardChargeResult> {
		return callEndpoint(this.#ctx, "card", params, options, ({ data, wrapper, secrets, unexpected }) => {
			// Unsigned text handed to the merchant: the card data of this request never comes back in it.
			const message = typeof wrapper.message === "string" ? secrets.remove(wrapper.message) : null;
			const { transactionId, url } = data;
			// Signed evidence first: a 3DS page in the signed data is a redirect, whatever the unsigned status says.
			if (url !== undefined) return { outcome: "redirect", transactionId, redirectUrl: url, message };
			const { status } = wrapper;
			if (status === "success" || status === "pending") return { outcome: status, transactionId, message };
			if (status === "redirect") throw unexpected("a redirect response has no data.url");
			throw unexpected("status is not success, redirect or pending");
		});
	}
}
