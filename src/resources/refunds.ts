import type { RefundParams } from "../schemas/params.js";
import { refundParamsSchema, refundQueryRequestSchema } from "../schemas/requests.js";
import { type Refund, refundSchema } from "../schemas/resources.js";
import { type RefundCreated, refundCreatedDataSchema } from "../schemas/responses.js";
import type { RequestOptions } from "../transport/http.js";
import { type ClientContext, call, describeIssues, offSchema } from "./context.js";
import { optionalMerchantId, sameId } from "./request-fields.js";
import { validate } from "./validate.js";

const CREATE_PATH = "/v2/refund";
const QUERY_PATH = "/v2/refund/query";

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
	 * What is signed: `refundId` and `refundNumber` (the answer's `data`).
	 * `approval` and `message` come from the wrapper's `message`, which the
	 * gateway does not sign (nothing signed says whether the refund is held):
	 * confirm with `refunds.retrieve(refundId)` or the refund IPN (both signed)
	 * before acting on them.
	 *
	 * Never retried: on a timeout or a reset after sending, or an answer that
	 * cannot be verified or read, `OutcomeUnknownError` tells you to check the
	 * transaction's refunds first (a retry could refund twice).
	 */
	async create(params: RefundParams, options?: RequestOptions): Promise<RefundCreated> {
		const ctx = this.#ctx;
		const data = validate(ctx, refundParamsSchema(ctx), params, CREATE_PATH);
		const fields = { ...optionalMerchantId(ctx), ...data };
		return call(
			ctx,
			{
				endpoint: "refund",
				path: CREATE_PATH,
				kind: "create",
				what: "The refund",
				ids: { transactionId: data.transactionId },
				fields,
				options,
				alwaysVerify: false,
			},
			(opened, answer) => {
				const parsed = refundCreatedDataSchema.safeParse(opened.fields);
				if (!parsed.success) throw offSchema(answer, CREATE_PATH, describeIssues(parsed.error));
				const raw = opened.wrapper ? opened.wrapper.message : opened.fields.message;
				// The spec's rule: message is null when auto-processed, a waiting-for-approval text when held.
				const message = typeof raw === "string" && raw.trim() !== "" ? raw : null;
				return {
					refundId: parsed.data.refundId,
					refundNumber: parsed.data.refundNumber,
					approval: message === null ? "processed" : "pending_approval",
					message,
				};
			},
		);
	}

	/** The refund's current status, verified (always). Retried like every query. */
	async retrieve(refundId: string, options?: RequestOptions): Promise<Refund> {
		const ctx = this.#ctx;
		const fields = validate(ctx, refundQueryRequestSchema(ctx), { ...optionalMerchantId(ctx), refundId }, QUERY_PATH);
		return call(
			ctx,
			{
				endpoint: "refundQuery",
				path: QUERY_PATH,
				kind: "query",
				what: "The refund query",
				ids: {},
				fields,
				options,
				alwaysVerify: true,
			},
			(opened, answer) => {
				const parsed = refundSchema.safeParse(opened.fields);
				if (!parsed.success) throw offSchema(answer, QUERY_PATH, describeIssues(parsed.error));
				const about = parsed.data.refundId;
				if (!sameId(about, refundId)) throw offSchema(answer, QUERY_PATH, "the signed answer is about another refund");
				return parsed.data;
			},
		);
	}
}
