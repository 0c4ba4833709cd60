import * as z from "zod/mini";

import { string } from "./fields.js";
import { lazySchema } from "./lazy.js";
import {
	type CardChargeShape,
	type CheckoutShape,
	cardChargeOwnShape,
	checkoutOwnShape,
	FILLED_BY_CLIENT,
	FORCED_ON_CARD,
	orderShape,
	refundQueryShape,
	refundShape,
	transactionQueryShape,
} from "./request-shapes.js";

/**
 * WIRE-level request schemas: one per endpoint, the whole message the gateway receives (`merchantId`
 * included where its table has it; `signature` and `signVersion` excluded: they belong to the envelope).
 * They work on received JSON too (the sandbox validates incoming requests with them). Each comes from a
 * factory taking {@link RequestSchemaOptions}; the two variants are built once and cached.
 */

export interface RequestSchemaOptions {
	/**
	 * Accept `http:` callback, notification, cancel and error URLs whose host is
	 * loopback (`localhost`, `127.0.0.0/8`, `[::1]`), for local development.
	 * @default false
	 */
	allowLoopbackHttp?: boolean | undefined;
}

/** billingState is conditional on S2S: required when billingCountry is US or CA. */
interface StateAndCountry {
	billingCountry?: string | undefined;
	billingState?: string | undefined;
}
const requireStateForUsCa = () =>
	z.superRefine((value: StateAndCountry, ctx) => {
		if ((value.billingCountry === "US" || value.billingCountry === "CA") && value.billingState === undefined) {
			ctx.addIssue({ code: "custom", path: ["billingState"], message: "is required when billingCountry is US or CA" });
		}
	});

/** The gateway overrides both on S2S; the schema does the same so the signed message says what happens. */
const forceCardApi = <T extends object>(value: T) => ({
	...value,
	paymentMethod: "card" as const,
	connectionMode: "API" as const,
});

/** `checkout.create` sends a JSON request: a form post is `checkout.directPost()`'s. */
const DIRECT_POST_ELSEWHERE = {
	path: ["connectionMode"],
	message: "DIRECT_POST is a browser form post: use checkout.directPost()",
};

function build(allowLoopbackHttp: boolean) {
	const order = orderShape(allowLoopbackHttp);
	const checkout: CheckoutShape = { ...order, ...checkoutOwnShape() };
	const card: CardChargeShape = { ...order, ...cardChargeOwnShape() };
	const refund = refundShape();
	const checkoutFormParams = z.omit(z.strictObject(checkout), FILLED_BY_CLIENT);
	return {
		checkout: z.object(checkout),
		cardCharge: z.pipe(z.object(card).check(requireStateForUsCa()), z.transform(forceCardApi)),
		transactionQuery: z.object(transactionQueryShape()),
		refund: z.object(refund),
		refundQuery: z.object(refundQueryShape()),
		// What merchants pass: no merchantId (from the client's configuration), no
		// signature; for S2S no paymentMethod or connectionMode (forced). Strict, so a
		// misspelled optional field is an error rather than silently dropped.
		checkoutFormParams,
		checkoutParams: checkoutFormParams.check(
			z.refine((params) => params.connectionMode !== "DIRECT_POST", DIRECT_POST_ELSEWHERE),
		),
		cardChargeParams: z.pipe(
			z.omit(z.strictObject(card), FORCED_ON_CARD).check(requireStateForUsCa()),
			z.transform(forceCardApi),
		),
		refundParams: z.omit(z.strictObject(refund), FILLED_BY_CLIENT),
		transactionQueryParams: z.omit(z.strictObject(transactionQueryShape()), FILLED_BY_CLIENT),
		refundQueryParams: z.omit(z.strictObject(refundQueryShape()), FILLED_BY_CLIENT),
	};
}

type Schemas = ReturnType<typeof build>;
const cache: [Schemas?, Schemas?] = [];

/** Every request schema, the wire messages' and what merchants pass, for these options. */
export function requestSchemas(options?: RequestSchemaOptions): Schemas {
	const loopback = options?.allowLoopbackHttp === true;
	cache[Number(loopback)] ??= build(loopback);
	return cache[Number(loopback)] as Schemas;
}

/** One request schema's factory. */
const factory =
	<K extends keyof Schemas>(name: K) =>
	(options?: RequestSchemaOptions): Schemas[K] =>
		requestSchemas(options)[name];

/** POST /v2/checkout: the message the gateway receives. */
export const checkoutRequestSchema = factory("checkout");
/** POST /v2/card/api: the message the gateway receives; output has paymentMethod `card` and connectionMode `API`. */
export const cardChargeRequestSchema = factory("cardCharge");
/** POST /v2/checkout/query. */
export const transactionQueryRequestSchema = factory("transactionQuery");
/** POST /v2/refund. */
export const refundRequestSchema = factory("refund");
/** POST /v2/refund/query. */
export const refundQueryRequestSchema = factory("refundQuery");

/** `signature`: base64, at most 750 characters (the envelope field, outside the message schemas). */
export const signatureSchema = lazySchema(() =>
	string().check(z.minLength(1, "must not be empty"), z.maxLength(750, "must be at most 750 characters")),
);

/** Checkout fields that are numbers or JSON values in the message, strings in a form post. */
const NUMERIC_FORM_FIELDS = ["amount", "feeBySeller"] as const;
const JSON_FORM_FIELDS = ["metadata", "transactionDocuments", "paymentFilter", "paymentSorter"] as const;

/**
 * The inverse of the DIRECT_POST form encoding (`checkout.directPost`, 2.0):
 * turns the posted strings back into the message `checkoutRequestSchema`
 * validates (numbers for amount and feeBySeller, JSON values for metadata,
 * transactionDocuments, paymentFilter and paymentSorter). A value that does not
 * decode is left as the string, so the schema reports it. Verify the signature
 * over the posted strings first: they are what was signed.
 */
export function decodeCheckoutForm(fields: Readonly<Record<string, string>>): Record<string, unknown> {
	const message: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(fields))
		Object.defineProperty(message, key, { value, enumerable: true, writable: true, configurable: true });
	for (const key of NUMERIC_FORM_FIELDS) {
		const value = fields[key];
		if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) message[key] = Number(value);
	}
	for (const key of JSON_FORM_FIELDS) {
		const value = fields[key];
		if (typeof value !== "string") continue;
		try {
			message[key] = JSON.parse(value);
		} catch {
			// left as text: the schema names the field
		}
	}
	return message;
}
