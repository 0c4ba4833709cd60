import * as z from "zod/mini";
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
	string,
	text,
	transactionDocuments,
	typeError,
	ulid,
	webUrl,
} from "./fields.js";

/**
 * The fields of each request, written once: the rule (a zod schema) and, in its TSDoc, what the field
 * means and what the gateway does when an optional one is omitted (the spec's "Defaults" tables; the
 * SDK never fills them in). The wire schemas, the parameters merchants pass and their public types
 * (`CheckoutParams`...) are all made from these shapes, so an editor shows these docs on hover.
 */

const merchantId = () => text(1, 50);

/** Fields checkout and S2S share, with the same rules. */
export function orderShape(allowLoopbackHttp: boolean) {
	return {
		/** Your merchant ID (1-50 characters). Filled in by the client from its configuration. */
		merchantId: merchantId(),
		/** Order reference, unique per merchant (1-250 characters). */
		orderRef: text(1, 250),
		/**
		 * Invoice amount: a JSON number, minimum 1, at most 2 decimal places on its shortest form
		 * (`10.1` yes, `0.1 + 0.2` no).
		 */
		amount: amount(1),
		/** ISO 4217 currency code, such as `EUR`. */
		currency: currencyCode(),
		/** Where the buyer returns after a successful payment: https only, 1-300 characters. */
		callbackUrl: secureUrl(allowLoopbackHttp),
		/** Where the gateway POSTs the IPN: https only, 1-300 characters. */
		notificationUrl: secureUrl(allowLoopbackHttp),
		/** Where the buyer goes on cancellation: https only, 1-300 characters. */
		cancelUrl: secureUrl(allowLoopbackHttp),
		/** Where the buyer goes on error: https only, 1-300 characters. */
		errorUrl: secureUrl(allowLoopbackHttp),
		/** Shown on the checkout screen (1-3000 characters). */
		orderDescription: text(1, 3000),
		/** Free key-value object, returned unchanged in IPNs and queries. Omitted: absent. */
		metadata: z.optional(metadata()),
		/** Supporting documents, `[{ type, url }]`. Omitted: absent. */
		transactionDocuments: z.optional(transactionDocuments()),
		/**
		 * Percent of the processing fee the merchant pays (0-100); 0 means the buyer pays 100%.
		 * Omitted: the percentage configured for the merchant account (the buyer pays the rest).
		 */
		feeBySeller: z.optional(percent()),
		/** Merchant website URL (max 300); its host is what the allowed-domain check validates. Omitted: callbackUrl. */
		websiteUrl: z.optional(webUrl(300)),
		/**
		 * Session expiry, ISO 8601 with a time zone (`2026-11-22T10:00:00Z`).
		 * Omitted: 24 hours after the request. On S2S it is validated but has no effect.
		 */
		expiresAt: z.optional(isoDateTime()),
	};
}

/** The hosted checkout's own fields (POST /v2/checkout). */
export function checkoutOwnShape() {
	return {
		/** Payment method(s) to display, such as `checkout` or `card` (1-255). */
		paymentMethod: text(1, 255),
		/**
		 * `API`: the gateway responds with a payment link. `DIRECT_POST`: use `checkout.directPost()`.
		 * Omitted: API for JSON requests, DIRECT_POST for a form post.
		 */
		connectionMode: z.optional(z.enum(["API", "DIRECT_POST"], { error: typeError('"API" or "DIRECT_POST"') })),
		/** Payment method types to exclude. Omitted: nothing excluded. */
		paymentFilter: z.optional(paymentTypeList()),
		/** Payment method types in display order. Omitted: the merchant account's order. */
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
		/** Max 20 on checkout. Omitted: empty; the buyer fills it in. */
		billingPhoneNumber: z.optional(text(0, 20)),
		/** Brand name on the hosted page (1-255). Omitted: the company name registered for the merchant. */
		brandName: z.optional(text(1, 255)),
		/** Up to 3 colors joined by `---`: names, HEX or RGBA (1-255). Omitted: the service's default theme. */
		colorMode: z.optional(colorMode()),
		/** Logo on the hosted page (1-255). Omitted: the merchant logo registered for the merchant. */
		logoSource: z.optional(text(1, 255)),
		/**
		 * The buyer's IP (IPv4 or IPv6). Omitted: the IP of the incoming request, which with API mode is
		 * your server's (the buyer's real IP is recorded when the buyer opens the checkout page).
		 */
		customerIp: z.optional(ipAddress()),
	};
}

/** The S2S card charge's own fields (POST /v2/card/api). */
export function cardChargeOwnShape() {
	return {
		/** Forced to `card`: any sent value is overridden by the gateway and by the SDK. */
		paymentMethod: z.optional(string()),
		/** Not a field of S2S: forced to `API`; any sent value is overridden. */
		connectionMode: z.optional(string()),
		/** 12 to 19 digits, no spaces, passing the Luhn check. Never shown: masked to first 6 and last 4. */
		cardNumber: cardNumber(),
		/** Expiry month, `01` to `12`. */
		cardMonth: cardMonth(),
		/** Expiry year, two digits (`29`). */
		cardYear: cardYear(),
		/** CVV/CVC, 3 or 4 digits. Never shown anywhere. */
		cardSecurityCode: cardSecurityCode(),
		/** Max 255. */
		billingFirstName: text(1, 255),
		/** Max 255. */
		billingLastName: text(1, 255),
		/** Max 255. */
		billingEmail: text(1, 255),
		/** Max 255. */
		billingStreet1: text(1, 255),
		/** Max 255. Omitted: empty. */
		billingStreet2: z.optional(text(0, 255)),
		/** Max 255. */
		billingCity: text(1, 255),
		/** 2-255 characters; required when billingCountry is `US` or `CA`. */
		billingState: z.optional(text(2, 255)),
		/** ISO 3166-1 alpha-2, such as `US`. */
		billingCountry: countryCode(),
		/** Max 25. */
		billingPostalCode: text(1, 25),
		/** Max 10. Mandatory for one particular direct provider and for hosted-page processors. Omitted: empty. */
		billingPhoneCountryCode: z.optional(text(0, 10)),
		/** Max 30 on S2S. */
		billingPhoneNumber: text(1, 30),
		/** The buyer's IP address (IPv4 or IPv6). */
		customerIp: ipAddress(),
		/**
		 * The buyer's browser, for 3DS: an object or its JSON text. snake_case keys as the spec lists
		 * them, or their camelCase spellings (normalized). Mandatory: accept_header, screen_width,
		 * screen_height, screen_color_depth, window_width, window_height, language, java_enabled,
		 * user_agent, time_zone, time_zone_name. Optional keys omitted are not substituted (sending
		 * them improves the approval rate).
		 */
		browserDetails: browserDetailsSchema(),
	};
}

/** POST /v2/checkout/query. */
export function transactionQueryShape() {
	return {
		/** Not in the spec's table; sent only when the client's `alwaysSendMerchantId` asks. */
		merchantId: z.optional(merchantId()),
		/** The transaction's id (ULID). */
		transactionId: ulid(),
	};
}

/** POST /v2/refund. */
export function refundShape() {
	return {
		/** Not in the spec's table; sent only when the client's `alwaysSendMerchantId` asks. */
		merchantId: z.optional(merchantId()),
		/** The transaction to refund (ULID), from its IPN or a transaction query. */
		transactionId: ulid(),
		/** Minimum 0.10, at most 2 decimals; at most what remains refundable (paidAmount minus refunds so far). */
		amount: amount(0.1),
		/** Refund reason (max 1000). Omitted: empty, nothing stored. */
		reason: z.optional(text(0, 1000)),
	};
}

/** POST /v2/refund/query. */
export function refundQueryShape() {
	return {
		/** Not in the spec's table; sent only when the client's `alwaysSendMerchantId` asks. */
		merchantId: z.optional(merchantId()),
		/** The refund's id (ULID), from the refund response or refund IPN. */
		refundId: ulid(),
	};
}

export type OrderShape = ReturnType<typeof orderShape>;
export type CheckoutShape = OrderShape & ReturnType<typeof checkoutOwnShape>;
export type CardChargeShape = OrderShape & ReturnType<typeof cardChargeOwnShape>;
export type RefundShape = ReturnType<typeof refundShape>;

/** What the client fills in from its configuration: never a merchant's parameter. */
export const FILLED_BY_CLIENT = { merchantId: true } as const;
/** What S2S forces (and the client fills in): never a merchant's parameter. */
export const FORCED_ON_CARD = { merchantId: true, paymentMethod: true, connectionMode: true } as const;

/** What a merchant passes for a request of this shape: the shape without `omitted`, nothing else. */
export type ParamsOfShape<S extends z.core.$ZodShape, Omitted> =
	Omit<S, keyof Omitted> extends infer Kept extends z.core.$ZodShape
		? z.input<z.ZodMiniObject<Kept, z.core.$strict>>
		: never;
