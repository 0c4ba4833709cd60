import type * as z from "zod/mini";
import type { EndpointDefinition } from "../../endpoints.js";
import type { RequestSchemaOptions } from "../../schemas/requests.js";
import type { MerchantAccount } from "../books/merchants.js";
import type { ApiResponse } from "../wire/spec-responses.js";
import { isApiResponse } from "../wire/spec-responses.js";
import { type ApiContext, verifiedRequest } from "./context.js";
import { validateFields } from "./field-validation.js";

/** A request verified with the merchant's key and parsed with the endpoint's request schema. */
export interface VerifiedRequest<Params> {
	params: Params;
	merchant: MerchantAccount;
	/** Posted as a browser form (a DIRECT_POST checkout). */
	form: boolean;
}

/** What an endpoint responds with: an API response, or for a DIRECT_POST checkout the buyer's redirect. */
export type EndpointResponse = ApiResponse | { redirect: string };

/** One endpoint's own work: what happens once its request is verified and parsed. */
export interface EndpointHandler<Params> {
	/**
	 * The response to a request that leads to no merchant (an unknown transaction or refund).
	 * @default 422 naming merchantId, which is required
	 */
	unknownSubject?: ApiResponse | undefined;
	handle(request: VerifiedRequest<Params>, ctx: ApiContext): EndpointResponse;
}

/** The sandbox's handler of one endpoint of the table: `endpoint` is the table's row it serves. */
export interface ApiHandler<Definition extends EndpointDefinition = EndpointDefinition> {
	readonly endpoint: Definition;
	respond(ctx: ApiContext): EndpointResponse;
}

/**
 * Every endpoint's pipeline: verify the signature, parse the fields with the endpoint
 * table's request schema (the client's own), then let the handler call the ledger and respond.
 */
export function endpointPipeline<Definition extends EndpointDefinition, Schema extends z.core.$ZodType>(
	endpoint: Definition & { request: (options?: RequestSchemaOptions) => Schema },
	handler: EndpointHandler<z.output<Schema>>,
): ApiHandler<Definition> {
	const requestSchema: (options?: RequestSchemaOptions) => Schema = endpoint.request;
	const respond = (ctx: ApiContext): EndpointResponse => {
		const verified = verifiedRequest(ctx, handler.unknownSubject);
		if (isApiResponse(verified)) return verified;
		const schema = requestSchema({ allowLoopbackHttp: ctx.core.allowLoopbackHttp });
		const checked = validateFields(schema, verified.fields);
		if (isApiResponse(checked)) return checked;
		return handler.handle({ params: checked.value, merchant: verified.merchant, form: verified.form }, ctx);
	};
	return { endpoint, respond };
}
