import type * as z from "zod/mini";
import type { LazyOutput, LazySchema } from "./schemas/lazy.js";
import {
	cardChargeRequestSchema,
	checkoutRequestSchema,
	type RequestSchemaOptions,
	refundQueryRequestSchema,
	refundRequestSchema,
	requestSchemas,
	transactionQueryRequestSchema,
} from "./schemas/requests.js";
import { refundSchema, transactionSchema } from "./schemas/resources.js";
import { cardChargeDataSchema, checkoutCreatedFieldsSchema, refundCreatedDataSchema } from "./schemas/responses.js";

/** What the table says about one endpoint (each row satisfies this). */
export interface EndpointRow {
	/** The SDK method that calls it, as telemetry names its span and labels its metrics. */
	readonly operation: string;
	/** The path under the base URL. Every endpoint is a JSON POST. */
	readonly path: string;
	/**
	 * `create` changes money or state at the gateway: it is sent once and never retried, and a create
	 * that may have been sent but brought back no verified response has an unknown outcome. `query`
	 * changes nothing: it is retried, and its response must always be signed.
	 */
	readonly kind: "create" | "query";
	/** `flat` responses are signed whole; `wrapped` ones are `{ status, message, data }` with only `data` signed. */
	readonly envelope: "flat" | "wrapped";
	/** What the request makes or asks for, as error messages name it ("The refund may or may not..."). */
	readonly what: string;
	/** `required`: the message always carries `merchantId`; `optional`: only with `alwaysSendMerchantId`. */
	readonly merchantId: "required" | "optional";
	/** What a merchant passes to the SDK's method: the message without `merchantId`, strict about unknown keys. */
	readonly params: (options?: RequestSchemaOptions) => z.core.$ZodType;
	/** The message the gateway receives (without `signature` and `signVersion`); the sandbox validates with it. */
	readonly request: (options?: RequestSchemaOptions) => z.core.$ZodType;
	/** The signed fields of a success response (a wrapped response's `data`). */
	readonly response: LazySchema<z.core.$ZodType>;
}

/**
 * The gateway's five endpoints: the one place that says what each is. The client's request pipeline,
 * the sandbox's router and the test gateways read this table; adding an endpoint starts with a row
 * here (see "Adding an endpoint" in the README).
 */
export const ENDPOINTS = {
	checkout: {
		operation: "checkout.create",
		path: "/v2/checkout",
		kind: "create",
		envelope: "flat",
		what: "The checkout session",
		merchantId: "required",
		params: (options) => requestSchemas(options).checkoutParams,
		request: checkoutRequestSchema,
		response: checkoutCreatedFieldsSchema,
	},
	card: {
		operation: "card.charge",
		path: "/v2/card/api",
		kind: "create",
		envelope: "wrapped",
		what: "The card charge",
		merchantId: "required",
		params: (options) => requestSchemas(options).cardChargeParams,
		request: cardChargeRequestSchema,
		response: cardChargeDataSchema,
	},
	transactionQuery: {
		operation: "transactions.retrieve",
		path: "/v2/checkout/query",
		kind: "query",
		envelope: "flat",
		what: "The transaction query",
		merchantId: "optional",
		params: (options) => requestSchemas(options).transactionQueryParams,
		request: transactionQueryRequestSchema,
		response: transactionSchema,
	},
	refund: {
		operation: "refunds.create",
		path: "/v2/refund",
		kind: "create",
		envelope: "wrapped",
		what: "The refund",
		merchantId: "optional",
		params: (options) => requestSchemas(options).refundParams,
		request: refundRequestSchema,
		response: refundCreatedDataSchema,
	},
	refundQuery: {
		operation: "refunds.retrieve",
		path: "/v2/refund/query",
		kind: "query",
		envelope: "wrapped",
		what: "The refund query",
		merchantId: "optional",
		params: (options) => requestSchemas(options).refundQueryParams,
		request: refundQueryRequestSchema,
		response: refundSchema,
	},
} as const satisfies Record<string, EndpointRow>;

/** An endpoint's name in {@link ENDPOINTS}. */
export type EndpointName = keyof typeof ENDPOINTS;
/** One row of {@link ENDPOINTS}. */
export type EndpointDefinition<N extends EndpointName = EndpointName> = (typeof ENDPOINTS)[N];
/** Whether an endpoint changes state at the gateway (`create`) or only reads it (`query`). */
export type EndpointKind = EndpointRow["kind"];
/** What a merchant passes for endpoint `N`. */
export type ParamsOf<N extends EndpointName> = z.input<ReturnType<(typeof ENDPOINTS)[N]["params"]>>;
/** The signed fields of endpoint `N`'s success response, after validation. */
export type ResponseDataOf<N extends EndpointName> = LazyOutput<EndpointDefinition<N>["response"]>;

/** The endpoint served at `path`, if any (a trailing slash is ignored). */
export function endpointAt(path: string): EndpointName | undefined {
	const trimmed = path.replace(/\/+$/, "");
	return (Object.keys(ENDPOINTS) as EndpointName[]).find((name) => ENDPOINTS[name].path === trimmed);
}
