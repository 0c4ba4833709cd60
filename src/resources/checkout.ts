import { ENDPOINTS } from "../endpoints.js";
import { RequestValidationError } from "../errors/request-validation-error.js";
import type { CheckoutParams } from "../schemas/params.js";
import { requestSchemas } from "../schemas/requests.js";
import type { CheckoutSession } from "../schemas/responses.js";
import type { RequestOptions } from "../transport/http.js";
import type { ClientContext } from "./context.js";
import { type DirectPostForm, type DirectPostOptions, directPostForm } from "./direct-post.js";
import { callEndpoint } from "./pipeline.js";
import { validate } from "./validate.js";

/** `gateway.checkout`: hosted checkout sessions (POST /v2/checkout). */
export class CheckoutResource {
	readonly #ctx: ClientContext;

	/** @internal */
	constructor(ctx: ClientContext) {
		this.#ctx = ctx;
	}

	/**
	 * Creates a checkout session and returns its payment link (connectionMode API).
	 * Every field of the result is signed (the response is flat).
	 * Never retried: an `OutcomeUnknownError` says to reconcile by `orderRef` first.
	 *
	 * @throws RequestValidationError before sending, when a field breaks the spec's rules.
	 * @throws CheckoutError, GatewayValidationError, OutcomeUnknownError (also when the response fails verification)...
	 */
	async create(params: CheckoutParams, options?: RequestOptions): Promise<CheckoutSession> {
		return callEndpoint(this.#ctx, "checkout", params, options, ({ data }) => ({
			transactionId: data.transactionId,
			paymentLink: data.paymentLink,
			message: data.message ?? null,
		}));
	}

	/**
	 * DIRECT_POST: signs the session for a browser form post and returns the
	 * action URL, the signed fields, and a ready auto-submitting HTML page. No
	 * request leaves the server; the buyer's browser posts the form.
	 */
	directPost(params: CheckoutParams, options?: DirectPostOptions): DirectPostForm {
		const ctx = this.#ctx;
		const { path } = ENDPOINTS.checkout;
		try {
			const data = validate(requestSchemas(ctx).checkoutFormParams, params, path);
			const message = { merchantId: ctx.merchantId, ...data, connectionMode: "DIRECT_POST" };
			return directPostForm(ctx, path, message, options);
		} catch (error) {
			if (error instanceof RequestValidationError) ctx.observer.error({ method: "POST", path, error });
			throw error;
		}
	}
}
