import { sameId } from "../internal/ids.js";
import type { RefundParams } from "../schemas/params.js";
import type { Refund } from "../schemas/resources.js";
import type { RefundCreated } from "../schemas/responses.js";
import type { RequestOptions } from "../transport/http.js";
import type { ClientContext } from "./context.js";
import { callEndpoint } from "./pipeline.js";

/** `gateway.refunds`: refund creation (POST /v2/refund) and refund query (POST /v2/refund/query). */
export class RefundsResource {
	readonly #ctx: ClientContext;

	/** @internal */
	constructor(ctx: ClientContext) {
		this.#ctx = ctx;
	}

	/**
	 * Refunds all or part of a transaction (minimum 0.10; at most what remains
	 * refundable). `approval` says whether the gateway processed it at once or
	 * holds it for manual approval.
	 *
	 * What is signed: `refundId` and `refundNumber` (the response's `data`).
	 * `approval` and `message` come from the wrapper's `message`, which the
	 * gateway does not sign (nothing signed says whether the refund is held):
	 * confirm with `refunds.retrieve(refundId)` or the refund IPN (both signed)
	 * before acting on them.
	 *
	 * Never retried: an `OutcomeUnknownError` says to check the transaction's refunds first.
	 */
	async create(params: RefundParams, options?: RequestOptions): Promise<RefundCreated> {
		return callEndpoint(this.#ctx, "refund", params, options, ({ data, wrapper }) => {
			// The spec's rule: message is null when auto-processed, a waiting-for-approval text when held.
			const said = wrapper.message;
			const message = typeof said === "string" && said.trim() !== "" ? said : null;
			const approval = message === null ? "processed" : "pending_approval";
			return { refundId: data.refundId, refundNumber: data.refundNumber, approval, message };
		});
	}

	/** The refund's current status, verified (always). Retried like every query. */
	async retrieve(refundId: string, options?: RequestOptions): Promise<Refund> {
		return callEndpoint(this.#ctx, "refundQuery", { refundId }, options, ({ data, unexpected }) => {
			if (!sameId(data.refundId, refundId)) throw unexpected("the signed response is about another refund");
			return data;
		});
	}
}
