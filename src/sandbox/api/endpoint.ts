import type * as z from "zod/mini";
import type { EndpointDefinition } from "../../endpoints.js";
import { toFieldIssues } from "../../internal/field-issues.js";
import type { LazyOutput } from "../../schemas/lazy.js";
import type { RequestSchemaOptions } from "../../schemas/requests.js";
import { safeParse } from "../../schemas/safe-parse.js";
import type { MerchantAccount } from "../books/merchants.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import { type ApiMessage, authenticate } from "../wire/authentication.js";
import type { WrapperOf } from "../wire/gateway-signer.js";
import { LIMITS } from "../wire/limits.js";
import type { ReceivedEntry } from "../wire/received-log.js";
import {
	type ApiResponse,
	fieldError,
	groupIssues,
	isApiResponse,
	unknownMerchant,
	validationFailed,
} from "../wire/spec-responses.js";

/** One API request as every endpoint handler sees it. */
export interface ApiContext {
	core: SandboxCore;
	/** The body, read once by the router: the message, or the response refusing it. */
	message: ApiMessage | ApiResponse;
	/** The record of this request in `sandbox.received`, which verification completes. */
	received: ReceivedEntry;
	/** The origin links in responses point to (the sandbox's own address). */
	origin: string;
}

/** A request verified with the merchant's key and parsed with the endpoint's request schema. */
export interface VerifiedRequest<Params, Definition extends EndpointDefinition> {
	params: Params;
	merchant: MerchantAccount;
	/** Posted as a browser form (a DIRECT_POST checkout). */
	form: boolean;
	/** The endpoint's success response (HTTP 200), signed in the account's signing version. */
	succeed(data: LazyOutput<Definition["response"]>, ...wrapper: WrapperOf<Definition>): ApiResponse;
}

/** What an endpoint responds with: an API response, or for a DIRECT_POST checkout the buyer's redirect. */
export type EndpointResponse = ApiResponse | { redirect: string };

/** One endpoint's own work: what happens once its request is verified and parsed. */
export interface EndpointHandler<Params, Definition extends EndpointDefinition> {
	/**
	 * The response to a request that leads to no merchant (an unknown transaction or refund).
	 * @default 422 naming merchantId, which is required
	 */
	unknownSubject?: ApiResponse | undefined;
	handle(request: VerifiedRequest<Params, Definition>, ctx: ApiContext): EndpointResponse;
}

/** The sandbox's handler of one endpoint of the table: `endpoint` is the table's row it serves. */
export interface ApiHandler<Definition extends EndpointDefinition = EndpointDefinition> {
	readonly endpoint: Definition;
	respond(ctx: ApiContext): EndpointResponse;
}

/**
 * Every endpoint's pipeline: verify the signature with the key of the merchant the request leads to
 * (`findMerchant`), parse the fields with the endpoint table's request schema (the client's own, so the
 * sandbox and the client enforce the same field rules), then let the handler call the ledger and respond.
 */
export function endpointPipeline<Definition extends EndpointDefinition, Schema extends z.core.$ZodType>(
	endpoint: Definition & { request: (options?: RequestSchemaOptions) => Schema },
	handler: EndpointHandler<z.output<Schema>, Definition>,
): ApiHandler<Definition> {
	const requestSchema: (options?: RequestSchemaOptions) => Schema = endpoint.request;
	const respond = (ctx: ApiContext): EndpointResponse => {
		const { message, core, received } = ctx;
		if (isApiResponse(message)) return message;
		const found = findMerchant(core, message.claimed);
		if (!found) return handler.unknownSubject ?? fieldError("merchantId", "is required");
		const { merchant } = found;
		if (!merchant) {
			received.verified = false;
			return unknownMerchant(found.merchantId, core.merchants.ids());
		}
		const verified = authenticate(message.envelope, merchant, core.signer.signedString);
		received.verified = !isApiResponse(verified);
		if (isApiResponse(verified)) return verified;
		const schema = requestSchema({ allowLoopbackHttp: core.settings.allowLoopbackHttp });
		const checked = safeParse(schema, verified.fields);
		if (!checked.success) return validationFailed(groupIssues(toFieldIssues(checked.error)));
		const succeed: VerifiedRequest<unknown, Definition>["succeed"] = (data, ...wrapper) =>
			core.signer.successResponse(endpoint, data, merchant.signVersion, ...wrapper);
		return handler.handle({ params: checked.data, merchant, form: message.envelope.form, succeed }, ctx);
	};
	return { endpoint, respond };
}

/**
 * The merchant whose key must verify a request with these (unverified) fields: the one its merchantId
 * names, or for requests that only name a transaction or refund (D11: queries and refunds carry no
 * merchantId) that one's owner. `merchant` is undefined when no account has the id.
 */
export function findMerchant(
	core: SandboxCore,
	claimed: Record<string, unknown>,
): { merchantId: string; merchant: MerchantAccount | undefined } | undefined {
	const { merchantId, transactionId, refundId } = claimed;
	if (merchantId !== undefined) {
		const merchant = typeof merchantId === "string" ? core.merchants.get(merchantId) : undefined;
		return { merchantId: String(merchantId).slice(0, LIMITS.quotedMerchantId), merchant };
	}
	const owner =
		typeof transactionId === "string"
			? core.ledger.ownerOf({ transactionId })
			: typeof refundId === "string"
				? core.ledger.ownerOf({ refundId })
				: undefined;
	return owner === undefined ? undefined : { merchantId: owner, merchant: core.merchants.get(owner) };
}
