import { CheckoutError } from "../errors/checkout-error.js";
import { RequestValidationError } from "../errors/request-validation-error.js";
import { redactText } from "../internal/redact.js";
import type { CheckoutParams } from "../schemas/params.js";
import { checkoutParamsSchema } from "../schemas/requests.js";
import { type CheckoutSession, checkoutCreatedFieldsSchema } from "../schemas/responses.js";
import type { RequestOptions } from "../transport/http.js";
import { type ClientContext, call, describeIssues, offSchema } from "./context.js";
import { type DirectPostForm, type DirectPostOptions, directPostForm } from "./direct-post.js";
import { validate } from "./validate.js";

const PATH = "/v2/checkout";

/** `gateway.checkout`: hosted checkout sessions (POST /v2/checkout). */
export class CheckoutResource {
	readonly #ctx: ClientContext;

	/** @internal */
	constructor(ctx: ClientContext) {
		this.#ctx = ctx;
	}

	/**
	 * Creates a checkout session and returns its payment link (connectionMode API).
	 * Every field of the result is signed (the answer is flat).
	 * Never retried: on a timeout or a reset after sending, or an answer that
	 * cannot be verified or read, `OutcomeUnknownError` tells you to reconcile by
	 * `orderRef` (IPN or transaction query) first.
	 *
	 * @throws RequestValidationError before sending, when a field breaks the spec's rules.
	 * @throws CheckoutError, GatewayValidationError, OutcomeUnknownError (also when the answer fails verification)...
	 */
	async create(params: CheckoutParams, options?: RequestOptions): Promise<CheckoutSession> {
		const ctx = this.#ctx;
		const data = validate(ctx, checkoutParamsSchema(ctx), params, PATH);
		if (data.connectionMode === "DIRECT_POST") {
			throw validationFailure(ctx, "connectionMode", "DIRECT_POST is a browser form post: use checkout.directPost()");
		}
		const fields = { merchantId: ctx.merchantId, ...data };
		return call(
			ctx,
			{
				endpoint: "checkout",
				path: PATH,
				kind: "create",
				what: "The checkout session",
				ids: { orderRef: data.orderRef },
				fields,
				options,
				alwaysVerify: false,
			},
			(opened, answer) => {
				// A failure that arrived signed (a 2.1 payload) is still a failure.
				if (opened.fields.status === "error") {
					const { message: text } = opened.fields;
					const message = typeof text === "string" ? redactText(text, answer.secrets) : "no message";
					throw new CheckoutError(`The checkout session was not created: ${message}`, {
						status: answer.status,
						path: PATH,
					});
				}
				const parsed = checkoutCreatedFieldsSchema.safeParse(opened.fields);
				if (!parsed.success) throw offSchema(answer, PATH, describeIssues(parsed.error));
				return {
					transactionId: parsed.data.transactionId,
					paymentLink: parsed.data.paymentLink,
					message: parsed.data.message ?? null,
				};
			},
		);
	}

	/**
	 * DIRECT_POST: signs the session for a browser form post and returns the
	 * action URL, the signed fields, and a ready auto-submitting HTML page. No
	 * request leaves the server; the buyer's browser posts the form.
	 */
	directPost(params: CheckoutParams, options?: DirectPostOptions): DirectPostForm {
		const ctx = this.#ctx;
		const data = validate(ctx, checkoutParamsSchema(ctx), params, PATH);
		return directPostForm(ctx, PATH, { merchantId: ctx.merchantId, ...data, connectionMode: "DIRECT_POST" }, options);
	}
}

function validationFailure(ctx: ClientContext, field: string, message: string): RequestValidationError {
	const error = new RequestValidationError([{ field, message }], PATH);
	ctx.observer.error({ method: "POST", path: PATH, error });
	return error;
}
