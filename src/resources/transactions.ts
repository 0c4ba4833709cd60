import { sameId } from "../internal/ids.js";
import type { Transaction } from "../schemas/resources.js";
import type { RequestOptions } from "../transport/http.js";
import type { ClientContext } from "./context.js";
import { callEndpoint } from "./pipeline.js";

/** `gateway.transactions`: transaction query (POST /v2/checkout/query). */
export class TransactionsResource {
	readonly #ctx: ClientContext;

	/** @internal */
	constructor(ctx: ClientContext) {
		this.#ctx = ctx;
	}

	/**
	 * The transaction's current status and full details, verified (always,
	 * whatever `requireSignedResponses` says). Retried on network errors,
	 * timeouts, 408, 429, 500, 502, 503 and 504 (a query changes nothing).
	 */
	async retrieve(transactionId: string, options?: RequestOptions): Promise<Transaction> {
		return callEndpoint(this.#ctx, "transactionQuery", { transactionId }, options, ({ data, unexpected }) => {
			if (!sameId(data.transactionId, transactionId)) {
				throw unexpected("the signed response is about another transaction");
			}
			return data;
		});
	}
}
