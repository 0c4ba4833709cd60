import type * as z from "zod/mini";
import type { EndpointDefinition } from "../../endpoints.js";
import type { RequestSchemaOptions } from "../../schemas/requests.js";
import type { MerchantAccount } from "../merchants.js";
import type { ApiReply } from "../replies.js";
import { isReply } from "../replies.js";
import { validateFields } from "../validate.js";
import { type ApiContext, verifiedRequest } from "./context.js";

/** A request verified with the merchant's key and parsed with the endpoint's request schema. */
export interface VerifiedRequest<Params> {
	params: Params;
	merchant: MerchantAccount;
	/** Posted as a browser form (a DIRECT_POST checkout). */
	form: boolean;
}

/** What an endpoint answers: an API reply, or for a DIRECT_POST checkout the buyer's redirect. */
export type EndpointReply = ApiReply | { redirect: string };

/** One endpoint's own work: what happens once its request is verified and parsed. */
export interface EndpointHandler<Params> {
	/**
	 * The answer to a request that leads to no merchant (an unknown transaction or refund).
	 * @default 422 naming merchantId, which is required
	 */
	unknownSubject?: ApiReply | undefined;
	handle(request: VerifiedRequest<Params>, ctx: ApiContext): EndpointReply;
}

/** The sandbox's handler of one endpoint of the table: `endpoint` is the table's row it answers. */
export interface ApiHandler<Definition extends EndpointDefinition = EndpointDefinition> {
	readonly endpoint: Definition;
	answer(ctx: ApiContext): EndpointReply;
}

/**
 * Every endpoint's pipeline: verify the signature, parse the fields with the endpoint
 * table's request schema (the client's own), then let the handler call the ledger and reply.
 */
export function endpointPipeline<Definition extends EndpointDefinition, Schema extends z.core.$ZodType>(
	endpoint: Definition & { request: (options?: RequestSchemaOptions) => Schema },
	handler: EndpointHandler<z.output<Schema>>,
): ApiHandler<Definition> {
	const requestSchema: (options?: RequestSchemaOptions) => Schema = endpoint.request;
	const answer = (ctx: ApiContext): EndpointReply => {
		const verified = verifiedRequest(ctx, handler.unknownSubject);
		if (isReply(verified)) return verified;
		const schema = requestSchema({ allowLoopbackHttp: ctx.core.allowLoopbackHttp });
		const checked = validateFields(schema, verified.fields);
		if (isReply(checked)) return checked;
		return handler.handle({ params: checked.value, merchant: verified.merchant, form: verified.form }, ctx);
	};
	return { endpoint, answer };
}
