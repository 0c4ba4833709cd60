import { transactionQueryRequestSchema } from "../schemas/requests.js";
import { type Transaction, transactionSchema } from "../schemas/resources.js";
import type { RequestOptions } from "../transport/http.js";
import { type ClientContext, call, describeIssues, offSchema } from "./context.js";
import { optionalMerchantId, sameId } from "./request-fields.js";
import { validate } from "./validate.js";

const PATH = "/v2/checkout/query";

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
	 * timeouts, 408, 429 and 5xx (a query changes nothing).
	 */
	async retrieve(transactionId: string, options?: RequestOptions): Promise<Transaction> {
		const ctx = this.#ctx;
		const fields = validate(
			ctx,
			transactionQueryRequestSchema(ctx),
			{ ...optionalMerchantId(ctx), transactionId },
			PATH,
		);
		return call(
			ctx,
			{
				endpoint: "transactionQuery",
				path: PATH,
				kind: "query",
				what: "The transaction query",
				ids: { transactionId },
				fields,
				options,
				alwaysVerify: true,
			},
			(opened, answer) => {
				const parsed = transactionSchema.safeParse(opened.fields);
				if (!parsed.success) throw offSchema(answer, PATH, describeIssues(parsed.error));
				const about = parsed.data.transactionId;
				if (!sameId(about, transactionId))
					throw offSchema(answer, PATH, "the signed answer is about another transaction");
				return parsed.data;
			},
		);
	}
}
