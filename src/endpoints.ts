import {
	cardChargeRequestSchema,
	checkoutRequestSchema,
	refundQueryRequestSchema,
	refundRequestSchema,
	transactionQueryRequestSchema,
} from "./schemas/requests.js";
import { refundSchema, transactionSchema } from "./schemas/resources.js";
import { cardChargeDataSchema, checkoutCreatedFieldsSchema, refundCreatedDataSchema } from "./schemas/responses.js";

/**
 * The gateway's five endpoints: the one place that says what each is. The
 * client's request pipeline, the sandbox's router and the test gateway all read
 * this table; adding an endpoint starts with a row here.
 *
 * - `kind`: a `create` changes money or state at the gateway, so it is never
 *   retried once it may have been sent, and an answer that cannot be verified
 *   leaves its outcome unknown. A `query` changes nothing: it is retried, and its
 *   answer must always be signed.
 * - `envelope`: `flat` answers are signed whole; `wrapped` answers are
 *   `{ status, message, data }` with only `data` signed.
 * - `request`: the message the gateway receives (without `signature` and
 *   `signVersion`), as a schema factory taking the loopback-http option.
 * - `answer`: the signed fields of a success answer.
 */
export const ENDPOINTS = {
	checkout: {
		path: "/v2/checkout",
		kind: "create",
		envelope: "flat",
		what: "The checkout session",
		request: checkoutRequestSchema,
		answer: checkoutCreatedFieldsSchema,
	},
	card: {
		path: "/v2/card/api",
		kind: "create",
		envelope: "wrapped",
		what: "The card charge",
		request: cardChargeRequestSchema,
		answer: cardChargeDataSchema,
	},
	transactionQuery: {
		path: "/v2/checkout/query",
		kind: "query",
		envelope: "flat",
		what: "The transaction query",
		request: transactionQueryRequestSchema,
		answer: transactionSchema,
	},
	refund: {
		path: "/v2/refund",
		kind: "create",
		envelope: "wrapped",
		what: "The refund",
		request: refundRequestSchema,
		answer: refundCreatedDataSchema,
	},
	refundQuery: {
		path: "/v2/refund/query",
		kind: "query",
		envelope: "wrapped",
		what: "The refund query",
		request: refundQueryRequestSchema,
		answer: refundSchema,
	},
} as const;

/** An endpoint's name in {@link ENDPOINTS}. */
export type EndpointName = keyof typeof ENDPOINTS;
/** One row of {@link ENDPOINTS}. */
export type EndpointDefinition<N extends EndpointName = EndpointName> = (typeof ENDPOINTS)[N];
/** Whether an endpoint changes state at the gateway (`create`) or only reads it (`query`). */
export type EndpointKind = EndpointDefinition["kind"];
/** Whether an answer is signed whole (`flat`) or only its `data` (`wrapped`). */
export type Envelope = EndpointDefinition["envelope"];

/** The endpoint served at `path`, if any (a trailing slash is ignored). */
export function endpointAt(path: string): EndpointName | undefined {
	const trimmed = path.replace(/\/+$/, "");
	for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
		if (ENDPOINTS[name].path === trimmed) return name;
	}
	return undefined;
}
