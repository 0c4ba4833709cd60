import * as z from "zod/mini";
import type { FieldIssue } from "../errors/request-validation-error.js";
import { browserDetailsSchema } from "./browser-details.js";
import {
	amount,
	cardMonth,
	cardNumber,
	cardSecurityCode,
	cardYear,
	colorMode,
	countryCode,
	currencyCode,
	ipAddress,
	isoDateTime,
	metadata,
	paymentTypeList,
	percent,
	secureUrl,
	text,
	transactionDocuments,
	typeError,
	ulid,
	webUrl,
} from "./fields.js";
import { lazySchema } from "./lazy.js";

/**
 * WIRE-level request schemas: one per endpoint, describing the whole message
 * the gateway receives (`merchantId` included where its table has it;
 * `signature` and `signVersion` excluded, because they belong to the envelope,
 * not the message). They encode
 * every field rule of the spec and work on received JSON too (the sandbox
 * validates incoming requests with them).
 *
 * Each export is a factory taking {@link RequestSchemaOptions}; the two
 * variants are built once and cached, so calling a factory is cheap.
 *
 * The SDK never invents the gateway's defaults: an omitted optional field stays
 * omitted; its TSDoc says what the gateway does then (spec, "Defaults" tables).
 */

export interface RequestSchemaOptions {
	/**
	 * Accept `http:` callback, notification, cancel and error URLs whose host is
	 * loopback (`localhost`, `127.0.0.0/8`, `[::1]`), for local development (D10).
	 * @default false
	 */
	allowLoopbackHttp?: boolean | undefined;
}

/** merchantId: String(1-50), M on checkout and S2S. Queries and refunds have none (D11); it is optional there. */
const merchantId = () => text(1, 50);

/** Fields checkout and S2S share, with identical rules. */
function commonShape(allowLoopbackHttp: boolean) {
	return {
		/** Merchant's ID (1-50). Filled in by the client from its configuration. */
		merchantId: merchantId(),
		/** Order reference, unique per merchant (1-250). */
		orderRef: text(1, 250),
		/** Invoice amount: a JSON number, minimum 1, at most 2 decimal places (D9). */
		amount: amount(1),
		/** ISO 4217 currency code, such as `EUR`. */
		currency: currencyCode(),
		/** Where the buyer returns after a successful payment. https only (1-300). */
		callbackUrl: secureUrl(allowLoopbackHttp),
		/** Where the gateway POSTs the IPN. https only (1-300). */
		notificationUrl: secureUrl(allowLoopbackHttp),
		/** Where the buyer goes on cancellation. https only (1-300). */
		cancelUrl: secureUrl(allowLoopbackHttp),
		/** Where the buyer goes on error. https only (1-300). */
		errorUrl: secureUrl(allowLoopbackHttp),
		/** Shown on the checkout screen (1-3000). */
		orderDescription: text(1, 3000),
		/** Free key-value object returned in IPN and query responses. Omitted: absent. */
		metadata: z.optional(metadata()),
		/** Supporting documents, `[{ type, url }]`. Omitted: absent. */
		transactionDocuments: z.optional(transactionDocuments()),
		/**
		 * Percent of the processing fee the merchant pays (0-100); 0 means the buyer pays 100%.
		 * Omitted: the percentage configured for the merchant account.
		 */
		feeBySeller: z.optional(percent()),
		/** Merchant website URL (max 300); its host is what the allowed-domain check validates. Omitted: callbackUrl. */
		websiteUrl: z.optional(webUrl(300)),
		/** Session expiry, ISO 8601 with a time zone. Omitted: 24 hours after the request. */
		expiresAt: z.optional(isoDateTime()),
	};
}

function checkoutShape(allowLoopbackHttp: boolean) {
	return {
		...commonShape(allowLoopbackHttp),
		/** Payment method(s) to display, such as `checkout` or `card`. */
		paymentMethod: text(1, 255),
		/** `API` (JSON answer with a payment link) or `DIRECT_POST` (browser form post). Omitted: API for JSON requests, DIRECT_POST for a form post. */
		connectionMode: z.optional(z.enum(["API", "DIRECT_POST"], { error: typeError('"API" or "DIRECT_POST"') })),
		/** Payment method types to exclude. Omitted: nothing excluded. */
		paymentFilter: z.optional(paymentTypeList()),
		/** Ordered payment method types controlling display order. Omitted: the merchant account's order. */
		paymentSorter: z.optional(paymentTypeList()),
		/** Max 255. Omitted: empty; the buyer fills it in on the checkout page (as every billing field). */
		billingFirstName: z.optional(text(0, 255)),
		/** Max 255. Omitted: empty; the buyer fills it in. */
		billingLastName: z.optional(text(0, 255)),
		/** Max 255. Omitted: empty; the buyer fills it in. */
		billingEmail: z.optional(text(0, 255)),
		/** Max 255. Omitted: empty; the buyer fills it in. */
		billingStreet1: z.optional(text(0, 255)),
		/** Max 255. Omitted: empty; the buyer fills it in. */
		billingStreet2: z.optional(text(0, 255)),
		/** Max 255. Omitted: empty; the buyer fills it in. */
		billingCity: z.optional(text(0, 255)),
		/** 2-255 characters. Omitted: empty; the buyer fills it in. */
		billingState: z.optional(text(2, 255)),
		/** ISO 3166-1 alpha-2, such as `US`. Omitted: empty; the buyer fills it in. */
		billingCountry: z.optional(countryCode()),
		/** Max 25. Omitted: empty; the buyer fills it in. */
		billingPostalCode: z.optional(text(0, 25)),
		/** Max 10. Omitted: empty; the buyer fills it in. */
		billingPhoneCountryCode: z.optional(text(0, 10)),
		/** At most 20 characters on checkout. Omitted: empty; the buyer fills it in. */
		billingPhoneNumber: z.optional(text(0, 20)),
		/** Overrides the brand name on the hosted page (1-255). Omitted: the company name registered for the merchant. */
		brandName: z.optional(text(1, 255)),
		/** Up to 3 colors joined by `---` (names, HEX or RGBA; 1-255). Omitted: the service's default theme. */
		colorMode: z.optional(colorMode()),
		/** Overrides the logo on the hosted page (1-255). Omitted: the merchant logo registered for the merchant. */
		logoSource: z.optional(text(1, 255)),
		/** Customer IP (IPv4 or IPv6). Omitted: the IP of the incoming request (the merchant server's with API mode). */
		customerIp: z.optional(ipAddress()),
	};
}

function cardChargeShape(allowLoopbackHttp: boolean) {
	return {
		...commonShape(allowLoopbackHttp),
		/** Forced to `card`: any sent value is overridden by the gateway and by this schema. */
		paymentMethod: z.optional(z.string({ error: typeError("a string") })),
		/** Not a field of S2S: forced to `API`; any sent value is overridden. */
		connectionMode: z.optional(z.string({ error: typeError("a string") })),
		/** Card number: 12 to 19 digits passing the Luhn check. Never logged (masked to first 6 and last 4). */
		cardNumber: cardNumber(),
		/** Expiry month, `01` to `12`. */
		cardMonth: cardMonth(),
		/** Expiry year, two digits. */
		cardYear: cardYear(),
		/** CVV/CVC, 3 or 4 digits. Never logged. */
		cardSecurityCode: cardSecurityCode(),
		billingFirstName: text(1, 255),
		billingLastName: text(1, 255),
		billingEmail: text(1, 255),
		billingStreet1: text(1, 255),
		/** Omitted: empty. */
		billingStreet2: z.optional(text(0, 255)),
		billingCity: text(1, 255),
		/** 2-255 characters; required when billingCountry is US or CA. */
		billingState: z.optional(text(2, 255)),
		/** ISO 3166-1 alpha-2, such as `US`. */
		billingCountry: countryCode(),
		billingPostalCode: text(1, 25),
		/** Mandatory for one particular direct provider and for hosted-page processors. Omitted: empty. */
		billingPhoneCountryCode: z.optional(text(0, 10)),
		/** At most 30 characters on S2S. */
		billingPhoneNumber: text(1, 30),
		/** The buyer's IP address (IPv4 or IPv6). */
		customerIp: ipAddress(),
		/** The buyer's browser (3DS): an object or its JSON text; camelCase keys are normalized to snake_case. */
		browserDetails: browserDetailsSchema(),
	};
}

function transactionQueryShape() {
	return {
		/**
		 * Not in the spec's table (D11): the gateway finds the merchant through the
		 * transaction. Sent only when the client's `alwaysSendMerchantId` asks.
		 */
		merchantId: z.optional(merchantId()),
		/** The transaction's id (ULID). */
		transactionId: ulid(),
	};
}

function refundShape() {
	return {
		/** Not in the spec's table (D11); sent only when the client's `alwaysSendMerchantId` asks. */
		merchantId: z.optional(merchantId()),
		/** The transaction to refund (ULID), from its IPN or a transaction query. */
		transactionId: ulid(),
		/** Minimum 0.10, at most 2 decimals; the maximum is the remaining refundable amount (checked by the gateway). */
		amount: amount(0.1),
		/** Refund reason (max 1000). Omitted: empty, nothing stored. */
		reason: z.optional(text(0, 1000)),
	};
}

function refundQueryShape() {
	return {
		/** Not in the spec's table (D11); sent only when the client's `alwaysSendMerchantId` asks. */
		merchantId: z.optional(merchantId()),
		/** The refund's id (ULID), from the refund response or refund IPN. */
		refundId: ulid(),
	};
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
	const checkout = checkoutShape(allowLoopbackHttp);
	const card = cardChargeShape(allowLoopbackHttp);
	const refund = refundShape();
	const forcedCardFields = { merchantId: true, paymentMethod: true, connectionMode: true } as const;
	return {
		checkout: z.object(checkout),
		cardCharge: z.pipe(z.object(card).check(requireStateForUsCa()), z.transform(forceCardApi)),
		transactionQuery: z.object(transactionQueryShape()),
		refund: z.object(refund),
		refundQuery: z.object(refundQueryShape()),
		// What merchants pass: no merchantId (from the client's configuration), no
		// signature; for S2S no paymentMethod or connectionMode (forced). Strict, so a
		// misspelled optional field is an error rather than silently dropped.
		checkoutFormParams: z.omit(z.strictObject(checkout), { merchantId: true }),
		checkoutParams: z
			.omit(z.strictObject(checkout), { merchantId: true })
			.check(z.refine((params) => params.connectionMode !== "DIRECT_POST", DIRECT_POST_ELSEWHERE)),
		cardChargeParams: z.pipe(
			z.omit(z.strictObject(card), forcedCardFields).check(requireStateForUsCa()),
			z.transform(forceCardApi),
		),
		refundParams: z.omit(z.strictObject(refund), { merchantId: true }),
		transactionQueryParams: z.omit(z.strictObject(transactionQueryShape()), { merchantId: true }),
		refundQueryParams: z.omit(z.strictObject(refundQueryShape()), { merchantId: true }),
	};
}

type Schemas = ReturnType<typeof build>;
const cache = new Map<boolean, Schemas>();

function schemas(options: RequestSchemaOptions | undefined): Schemas {
	const key = options?.allowLoopbackHttp === true;
	let built = cache.get(key);
	if (!built) {
		built = build(key);
		cache.set(key, built);
	}
	return built;
}

/** POST /v2/checkout: the message the gateway receives. */
export const checkoutRequestSchema = (options?: RequestSchemaOptions): Schemas["checkout"] => schemas(options).checkout;
/** POST /v2/card/api: the message the gateway receives; output has paymentMethod `card` and connectionMode `API`. */
export const cardChargeRequestSchema = (options?: RequestSchemaOptions): Schemas["cardCharge"] =>
	schemas(options).cardCharge;
/** POST /v2/checkout/query. */
export const transactionQueryRequestSchema = (options?: RequestSchemaOptions): Schemas["transactionQuery"] =>
	schemas(options).transactionQuery;
/** POST /v2/refund. */
export const refundRequestSchema = (options?: RequestSchemaOptions): Schemas["refund"] => schemas(options).refund;
/** POST /v2/refund/query. */
export const refundQueryRequestSchema = (options?: RequestSchemaOptions): Schemas["refundQuery"] =>
	schemas(options).refundQuery;

/** @internal what `GatewayClient` validates merchants' parameters with. */
export const checkoutParamsSchema = (options?: RequestSchemaOptions): Schemas["checkoutParams"] =>
	schemas(options).checkoutParams;
/** @internal what `checkout.directPost` validates merchants' parameters with (DIRECT_POST allowed). */
export const checkoutFormParamsSchema = (options?: RequestSchemaOptions): Schemas["checkoutFormParams"] =>
	schemas(options).checkoutFormParams;
/** @internal */
export const cardChargeParamsSchema = (options?: RequestSchemaOptions): Schemas["cardChargeParams"] =>
	schemas(options).cardChargeParams;
/** @internal */
export const refundParamsSchema = (options?: RequestSchemaOptions): Schemas["refundParams"] =>
	schemas(options).refundParams;
/** @internal */
export const transactionQueryParamsSchema = (options?: RequestSchemaOptions): Schemas["transactionQueryParams"] =>
	schemas(options).transactionQueryParams;
/** @internal */
export const refundQueryParamsSchema = (options?: RequestSchemaOptions): Schemas["refundQueryParams"] =>
	schemas(options).refundQueryParams;

/** `signature`: base64, at most 750 characters (the envelope field, outside the message schemas). */
export const signatureSchema = lazySchema(() =>
	z
		.string({ error: typeError("a string") })
		.check(z.minLength(1, "must not be empty"), z.maxLength(750, "must be at most 750 characters")),
);
/** `signVersion`: omitted means 2.0. */
export const signVersionSchema = lazySchema(() => z.enum(["2.0", "2.1"], { error: typeError('"2.0" or "2.1"') }));

/** Checkout parameters as the schema infers them (documented as `CheckoutParams` in params.ts). */
export type CheckoutParamsInput = z.input<Schemas["checkoutParams"]>;
/** S2S card charge parameters as the schema infers them (documented as `CardChargeParams`). */
export type CardChargeParamsInput = z.input<Schemas["cardChargeParams"]>;
/** Refund parameters as the schema infers them (documented as `RefundParams`). */
export type RefundParamsInput = z.input<Schemas["refundParams"]>;
/** The checkout message the gateway receives. */
export type CheckoutRequest = z.output<Schemas["checkout"]>;
export type CardChargeRequest = z.output<Schemas["cardCharge"]>;
export type TransactionQueryRequest = z.output<Schemas["transactionQuery"]>;
export type RefundRequest = z.output<Schemas["refund"]>;
export type RefundQueryRequest = z.output<Schemas["refundQuery"]>;

/**
 * Zod issues as `{ field, message }[]`, safe to show: never the input value
 * (zod issues can carry `input`; it is never read here). An unknown key becomes
 * one issue per key.
 */
export function toFieldIssues(error: { readonly issues: readonly z.core.$ZodIssue[] }): FieldIssue[] {
	const out: FieldIssue[] = [];
	for (const issue of error.issues) {
		const base = issue.path.map(String).join(".");
		if (issue.code === "unrecognized_keys") {
			for (const key of issue.keys)
				out.push({ field: base ? `${base}.${key}` : key, message: "is not a field of this request" });
			continue;
		}
		out.push({ field: base, message: issue.message });
	}
	return out;
}

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
