import { expect } from "vitest";
import {
	type CardChargeParams,
	type CheckoutParams,
	GatewayClient,
	type GatewayClientOptions,
	GatewayError,
} from "../../src/index.js";
import { keys } from "../support/vectors.js";

/** The base URL of clients that never reach a gateway (option checks, DIRECT_POST forms). */
export const BASE_URL = "https://gateway.test";

/** A Luhn-valid test card; the canary test looks for it everywhere. */
export const CARD = "4111111111111111";
export const CVV = "987";

export function makeClient(overrides: Partial<GatewayClientOptions> = {}): GatewayClient {
	return new GatewayClient({
		baseUrl: BASE_URL,
		merchantId: "M-1001",
		privateKey: keys.merchantPrivate,
		gatewayPublicKey: keys.gatewayPublic,
		retryBaseDelayMs: 1,
		...overrides,
	});
}

let refs = 0;
/** An orderRef no other call uses (the gateway refuses a second order with the same reference). */
export const uniqueRef = (prefix = "ORD") => `${prefix}-${process.pid}-${++refs}`;

export const checkoutParams = (overrides: Partial<CheckoutParams> = {}): CheckoutParams => ({
	orderRef: uniqueRef(),
	amount: 10.5,
	currency: "EUR",
	paymentMethod: "checkout",
	callbackUrl: "https://shop.example/pay/callback",
	notificationUrl: "https://shop.example/pay/ipn",
	cancelUrl: "https://shop.example/pay/cancel",
	errorUrl: "https://shop.example/pay/error",
	orderDescription: "Two coffees",
	...overrides,
});

export const browserDetails = {
	accept_header: "text/html",
	screen_width: "1920",
	screen_height: "1080",
	screen_color_depth: "24",
	window_width: "1280",
	window_height: "800",
	language: "en-US",
	java_enabled: "false" as const,
	user_agent: "Mozilla/5.0",
	time_zone: "-5",
	time_zone_name: "America/New_York",
};

export const cardParams = (overrides: Partial<CardChargeParams> = {}): CardChargeParams => ({
	orderRef: uniqueRef("ORD-S2S"),
	amount: 99.99,
	currency: "USD",
	callbackUrl: "https://shop.example/pay/callback",
	notificationUrl: "https://shop.example/pay/ipn",
	cancelUrl: "https://shop.example/pay/cancel",
	errorUrl: "https://shop.example/pay/error",
	orderDescription: "Shoes",
	cardNumber: CARD,
	cardMonth: "12",
	cardYear: "29",
	cardSecurityCode: CVV,
	billingFirstName: "Ana",
	billingLastName: "Lima",
	billingEmail: "ana@example.com",
	billingStreet1: "1 Main St",
	billingCity: "Springfield",
	billingState: "IL",
	billingCountry: "US",
	billingPostalCode: "62701",
	billingPhoneNumber: "+1 555 0100",
	customerIp: "203.0.113.7",
	browserDetails,
	...overrides,
});

/** The GatewayError a call fails with; fails the test when the call succeeds or throws something else. */
export async function failure(promise: Promise<unknown>): Promise<GatewayError> {
	try {
		await promise;
	} catch (error) {
		expect(error).toBeInstanceOf(GatewayError);
		return error as GatewayError;
	}
	throw new Error("expected the call to fail");
}
