import type { BrowserDetailsInput } from "./browser-details.js";
import type { CardChargeParamsInput, CheckoutParamsInput, RefundParamsInput } from "./requests.js";
import type { Assert, SameShape } from "./type-equality.js";

/**
 * What merchants pass to `checkout.create`, `card.charge` and `refunds.create`,
 * documented field by field from the spec (rules, and what the gateway does
 * when an optional field is omitted: the SDK never fills in its defaults).
 * The zod schemas in `requests.ts` are the source of truth; the `Assert` lines
 * at the end fail the build if these interfaces drift from them.
 */

/** A supporting document. */
export interface TransactionDocumentParam {
	/** Kind of document, such as `invoice` (not empty). */
	type: string;
	/** Absolute http(s) URL of the document. */
	url: string;
}

/** Fields checkout and S2S share, with the same rules. */
export interface OrderParams {
	/** Order reference, unique per merchant (1-250 characters). */
	orderRef: string;
	/** Invoice amount: a JSON number, minimum 1, at most 2 decimal places on its shortest form (`10.1` yes, `0.1 + 0.2` no). */
	amount: number;
	/** ISO 4217 currency code, such as `EUR`. */
	currency: string;
	/** Where the buyer returns after a successful payment: https only, 1-300 characters. */
	callbackUrl: string;
	/** Where the gateway POSTs the IPN: https only, 1-300 characters. */
	notificationUrl: string;
	/** Where the buyer goes on cancellation: https only, 1-300 characters. */
	cancelUrl: string;
	/** Where the buyer goes on error: https only, 1-300 characters. */
	errorUrl: string;
	/** Shown on the checkout screen (1-3000 characters). */
	orderDescription: string;
	/** Free key-value object, returned unchanged in IPNs and queries. Omitted: absent. */
	metadata?: Record<string, unknown> | undefined;
	/** Supporting documents. Omitted: absent. */
	transactionDocuments?: TransactionDocumentParam[] | undefined;
	/**
	 * Percent of the processing fee the merchant pays (0-100); 0 means the buyer pays 100%.
	 * Omitted: the percentage configured for the merchant account (the buyer pays the rest).
	 */
	feeBySeller?: number | undefined;
	/** Merchant website URL (max 300); its host is what the allowed-domain check validates. Omitted: callbackUrl is used. */
	websiteUrl?: string | undefined;
	/**
	 * Session expiry, ISO 8601 with a time zone (`2026-11-22T10:00:00Z`).
	 * Omitted: 24 hours after the request. On S2S it is validated but has no effect.
	 */
	expiresAt?: string | undefined;
}

/** `checkout.create` and `checkout.directPost` parameters (POST /v2/checkout). */
export interface CheckoutParams extends OrderParams {
	/** Payment method(s) to display, such as `checkout` or `card` (1-255). */
	paymentMethod: string;
	/**
	 * `API`: the gateway answers with a payment link. `DIRECT_POST`: use `checkout.directPost()`.
	 * Omitted: API for JSON requests, DIRECT_POST for a form post.
	 */
	connectionMode?: "API" | "DIRECT_POST" | undefined;
	/** Payment method types to exclude. Omitted: nothing excluded. */
	paymentFilter?: string[] | undefined;
	/** Payment method types in display order. Omitted: the merchant account's order. */
	paymentSorter?: string[] | undefined;
	/** Max 255. Omitted: empty; the buyer fills it in on the checkout page (as every billing field). */
	billingFirstName?: string | undefined;
	/** Max 255. Omitted: empty; the buyer fills it in. */
	billingLastName?: string | undefined;
	/** Max 255. Omitted: empty; the buyer fills it in. */
	billingEmail?: string | undefined;
	/** Max 255. Omitted: empty; the buyer fills it in. */
	billingStreet1?: string | undefined;
	/** Max 255. Omitted: empty; the buyer fills it in. */
	billingStreet2?: string | undefined;
	/** Max 255. Omitted: empty; the buyer fills it in. */
	billingCity?: string | undefined;
	/** 2-255 characters. Omitted: empty; the buyer fills it in. */
	billingState?: string | undefined;
	/** ISO 3166-1 alpha-2, such as `US`. Omitted: empty; the buyer fills it in. */
	billingCountry?: string | undefined;
	/** Max 25. Omitted: empty; the buyer fills it in. */
	billingPostalCode?: string | undefined;
	/** Max 10. Omitted: empty; the buyer fills it in. */
	billingPhoneCountryCode?: string | undefined;
	/** Max 20 on checkout. Omitted: empty; the buyer fills it in. */
	billingPhoneNumber?: string | undefined;
	/** Brand name on the hosted page (1-255). Omitted: the company name registered for the merchant. */
	brandName?: string | undefined;
	/** Up to 3 colors joined by `---`: names, HEX or RGBA (1-255). Omitted: the service's default theme. */
	colorMode?: string | undefined;
	/** Logo on the hosted page (1-255). Omitted: the merchant logo registered for the merchant. */
	logoSource?: string | undefined;
	/**
	 * The buyer's IP (IPv4 or IPv6). Omitted: the IP of the incoming request, which with API mode is
	 * your server's (the buyer's real IP is recorded when the buyer opens the checkout page).
	 */
	customerIp?: string | undefined;
}

/** `card.charge` parameters (POST /v2/card/api). `paymentMethod` and `connectionMode` are forced to `card` and `API`. */
export interface CardChargeParams extends OrderParams {
	/** 12 to 19 digits, no spaces, passing the Luhn check. Never shown: masked to first 6 and last 4. */
	cardNumber: string;
	/** Expiry month, `01` to `12`. */
	cardMonth: string;
	/** Expiry year, two digits (`29`). */
	cardYear: string;
	/** CVV/CVC, 3 or 4 digits. Never shown anywhere. */
	cardSecurityCode: string;
	/** Max 255. */
	billingFirstName: string;
	/** Max 255. */
	billingLastName: string;
	/** Max 255. */
	billingEmail: string;
	/** Max 255. */
	billingStreet1: string;
	/** Max 255. Omitted: empty. */
	billingStreet2?: string | undefined;
	/** Max 255. */
	billingCity: string;
	/** 2-255 characters; required when billingCountry is `US` or `CA`. */
	billingState?: string | undefined;
	/** ISO 3166-1 alpha-2, such as `US`. */
	billingCountry: string;
	/** Max 25. */
	billingPostalCode: string;
	/** Max 10. Mandatory for one particular direct provider and for hosted-page processors. Omitted: empty. */
	billingPhoneCountryCode?: string | undefined;
	/** Max 30 on S2S. */
	billingPhoneNumber: string;
	/** The buyer's IP address (IPv4 or IPv6). */
	customerIp: string;
	/**
	 * The buyer's browser, for 3DS: an object or its JSON text. snake_case keys as the spec lists
	 * them, or their camelCase spellings (normalized). Mandatory: accept_header, screen_width,
	 * screen_height, screen_color_depth, window_width, window_height, language, java_enabled,
	 * user_agent, time_zone, time_zone_name. Optional keys omitted are not substituted (sending
	 * them improves the approval rate).
	 */
	browserDetails: BrowserDetailsInput;
}

/** `refunds.create` parameters (POST /v2/refund). */
export interface RefundParams {
	/** The transaction to refund (ULID), from its IPN or a transaction query. */
	transactionId: string;
	/** Minimum 0.10, at most 2 decimals; at most what remains refundable (paidAmount minus refunds so far). */
	amount: number;
	/** Refund reason (max 1000). Omitted: empty, nothing stored. */
	reason?: string | undefined;
}

export type _CheckoutParamsMatch = Assert<SameShape<CheckoutParams, CheckoutParamsInput>>;
export type _CardChargeParamsMatch = Assert<SameShape<CardChargeParams, CardChargeParamsInput>>;
export type _RefundParamsMatch = Assert<SameShape<RefundParams, RefundParamsInput>>;
