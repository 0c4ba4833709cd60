import { describe, expect, test } from "vitest";
import { toFieldIssues } from "../../src/internal/field-issues.js";
import {
	cardChargeRequestSchema,
	checkoutRequestSchema,
	refundQueryRequestSchema,
	refundRequestSchema,
	signatureSchema,
	transactionQueryRequestSchema,
} from "../../src/schemas/requests.js";
import { ids } from "../support/gateway-messages.js";
import { browserDetails, CARD, cardParams, checkoutParams } from "./helpers.js";

type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown } };

const checkout = { merchantId: "M-1001", ...checkoutParams() };
const card = { merchantId: "M-1001", ...cardParams() };
const refund = { merchantId: "M-1001", transactionId: ids.transaction, amount: 5 };

function issuesOf(schema: Schema, message: unknown) {
	const result = schema.safeParse(message);
	return result.success ? [] : toFieldIssues(result.error as never);
}

/** [field, valid value, invalid value]; `undefined` as the invalid value means "missing". */
type Rule = [field: string, good: unknown, bad: unknown];

const x = (n: number) => "x".repeat(n);

const sharedRules: Rule[] = [
	["merchantId", x(50), x(51)],
	["merchantId", "M", ""],
	["orderRef", x(250), x(251)],
	["orderRef", "A", ""],
	["amount", 1, 0.99],
	["amount", 10.1, 1.1 + 2.2],
	["amount", 10.25, 10.125],
	["amount", 1_000_000, "10"],
	["amount", 99.99, Number.POSITIVE_INFINITY],
	["currency", "USD", "usd"],
	["currency", "JPY", "XYZ"],
	["currency", "EUR", "EURO"],
	["callbackUrl", "https://shop.example/cb", "http://shop.example/cb"],
	["callbackUrl", `https://shop.example/${x(279)}`, `https://shop.example/${x(280)}`],
	["notificationUrl", "https://shop.example/ipn", "not a url"],
	["cancelUrl", "https://shop.example/c", "ftp://shop.example/c"],
	["errorUrl", "https://shop.example/e", "http://localhost/e"],
	["orderDescription", x(3000), x(3001)],
	["orderDescription", "Café crème", ""],
	["metadata", { cartId: 42, nested: { a: [1] } }, [1, 2]],
	["metadata", {}, "cartId=42"],
	["transactionDocuments", [{ type: "invoice", url: "https://shop.example/inv.pdf" }], [{ type: "invoice" }]],
	["transactionDocuments", [], { type: "invoice", url: "https://shop.example/inv.pdf" }],
	[
		"transactionDocuments",
		[{ type: "invoice", url: "https://shop.example/inv.pdf" }],
		[{ type: "", url: "https://shop.example/inv.pdf" }],
	],
	["feeBySeller", 0, -1],
	["feeBySeller", 100, 100.5],
	["feeBySeller", 37.5, "50"],
	["websiteUrl", "https://shop.example", "shop.example"],
	["websiteUrl", `https://shop.example/${x(279)}`, `https://shop.example/${x(280)}`],
	["expiresAt", "2026-11-22T10:00:00Z", "2026-11-22"],
	["expiresAt", "2026-11-22T10:00:00+02:00", "tomorrow"],
	["expiresAt", "2026-11-22T10:00:00.123Z", "2026-11-22T10:00:00"],
];

const checkoutRules: Rule[] = [
	["paymentMethod", "checkout", ""],
	["connectionMode", "DIRECT_POST", "direct"],
	["connectionMode", "API", "api"],
	["paymentFilter", ["paypal", "crypto"], "paypal"],
	["paymentFilter", [], [""]],
	["paymentSorter", ["card", "paypal"], { first: "card" }],
	["billingFirstName", x(255), x(256)],
	["billingLastName", x(255), x(256)],
	["billingEmail", x(255), x(256)],
	["billingStreet1", x(255), x(256)],
	["billingStreet2", x(255), x(256)],
	["billingCity", x(255), x(256)],
	["billingState", "IL", "I"],
	["billingState", x(255), x(256)],
	["billingCountry", "US", "USA"],
	["billingCountry", "CA", "us"],
	["billingCountry", "GB", "ZZ"],
	["billingPostalCode", x(25), x(26)],
	["billingPhoneCountryCode", x(10), x(11)],
	["billingPhoneNumber", x(20), x(21)],
	["brandName", x(255), x(256)],
	["brandName", "Shop", ""],
	["colorMode", "red---#ffffff---rgba(0, 0, 0, 0.5)", "red---blue---green---black"],
	["colorMode", "#fff", "red--blue"],
	["colorMode", "navy", ""],
	["logoSource", x(255), x(256)],
	["customerIp", "203.0.113.7", "999.1.1.1"],
	["customerIp", "2001:db8::1", "localhost"],
];

const cardRules: Rule[] = [
	["cardNumber", CARD, "4111111111111112"],
	["cardNumber", "371449635398431", "4111 1111 1111 1111"],
	["cardNumber", "411111111117", "41111111111"],
	["cardNumber", "4111111111111111110", "41111111111111111113"],
	["cardMonth", "01", "1"],
	["cardMonth", "12", "13"],
	["cardMonth", "09", "00"],
	["cardYear", "29", "2029"],
	["cardYear", "07", "7"],
	["cardSecurityCode", "123", "12"],
	["cardSecurityCode", "1234", "12345"],
	["cardSecurityCode", "000", "abc"],
	["billingFirstName", x(255), ""],
	["billingLastName", x(255), undefined],
	["billingEmail", "a@b.c", undefined],
	["billingStreet1", x(255), x(256)],
	["billingStreet2", x(255), x(256)],
	["billingCity", x(255), undefined],
	["billingCountry", "CA", "Canada"],
	["billingPostalCode", x(25), x(26)],
	["billingPhoneCountryCode", x(10), x(11)],
	["billingPhoneNumber", x(30), x(31)],
	["billingPhoneNumber", "1", undefined],
	["customerIp", "::1", undefined],
	["customerIp", "10.0.0.1", "10.0.0"],
];

describe.each([
	["checkout", checkoutRequestSchema(), checkout, [...sharedRules, ...checkoutRules]],
	["S2S card", cardChargeRequestSchema(), card, [...sharedRules, ...cardRules]],
] as const)("%s wire schema: every rule passes and fails", (_name, schema, base, rules) => {
	test("the base message is valid", () => {
		expect(issuesOf(schema, base)).toEqual([]);
	});
	test.each(rules.map((rule) => [rule[0], rule[1], rule[2]] as const))(
		"%s: %j passes, %j fails",
		(field, good, bad) => {
			expect(issuesOf(schema, { ...base, [field]: good })).toEqual([]);
			const failed = issuesOf(schema, { ...base, [field]: bad });
			expect(failed.some((issue) => issue.field === field || issue.field.startsWith(`${field}.`))).toBe(true);
			for (const issue of failed) expect(issue.message.length).toBeGreaterThan(3);
		},
	);
});

describe("conditional and forced fields on S2S", () => {
	test.each(["US", "CA"])("billingState is required when billingCountry is %s", (country) => {
		const { billingState: _omitted, ...withoutState } = card;
		expect(issuesOf(cardChargeRequestSchema(), { ...withoutState, billingCountry: country })).toEqual([
			{ field: "billingState", message: "is required when billingCountry is US or CA" },
		]);
		expect(issuesOf(cardChargeRequestSchema(), { ...withoutState, billingCountry: "GB" })).toEqual([]);
	});

	test("paymentMethod and connectionMode are forced to card and API, whatever was sent", () => {
		const result = cardChargeRequestSchema().safeParse({
			...card,
			paymentMethod: "checkout",
			connectionMode: "DIRECT_POST",
		});
		expect(result.success && result.data).toMatchObject({ paymentMethod: "card", connectionMode: "API" });
	});
});

describe("browserDetails", () => {
	const schema = cardChargeRequestSchema();
	const parse = (value: unknown) => schema.safeParse({ ...card, browserDetails: value });

	test("a nested object passes unchanged", () => {
		const result = parse(browserDetails);
		expect(result.success && result.data.browserDetails).toEqual(browserDetails);
	});

	test("a JSON string with camelCase keys is parsed and normalized to snake_case; optional keys stay typed", () => {
		const camel = {
			acceptHeader: "text/html",
			screenWidth: 1920,
			screenHeight: "1080",
			screenColorDepth: "24",
			windowWidth: "1280",
			windowHeight: "800",
			language: "en-US",
			javaEnabled: false,
			userAgent: "Mozilla/5.0",
			timeZone: -5,
			timeZoneName: "America/New_York",
			languages: ["en-US", "pt"],
			cookieEnabled: true,
			hardwareConcurrency: 8,
			deviceMemory: 0.5,
			availWidth: 1900,
			currentUrl: "https://shop.example/cart",
		};
		const result = parse(JSON.stringify(camel));
		expect(result.success && result.data.browserDetails).toEqual({
			...browserDetails,
			time_zone: "-5",
			languages: ["en-US", "pt"],
			cookieEnabled: true,
			hardwareConcurrency: 8,
			deviceMemory: 0.5,
			availWidth: 1900,
			currentUrl: "https://shop.example/cart",
		});
	});

	test.each([
		[
			"a missing mandatory key",
			(() => {
				const { user_agent: _u, ...rest } = browserDetails;
				return rest;
			})(),
			"browserDetails.user_agent",
		],
		["text that is not JSON", "{not json", "browserDetails"],
		["an array", [browserDetails], "browserDetails"],
		["java_enabled not true/false", { ...browserDetails, java_enabled: "yes" }, "browserDetails.java_enabled"],
		["a width that is not digits", { ...browserDetails, screen_width: "wide" }, "browserDetails.screen_width"],
		["a time_zone that is not an offset", { ...browserDetails, time_zone: "EST" }, "browserDetails.time_zone"],
		["currentUrl over 2048", { ...browserDetails, currentUrl: x(2049) }, "browserDetails.currentUrl"],
		["platform over 255", { ...browserDetails, platform: x(256) }, "browserDetails.platform"],
		["hostname over 255", { ...browserDetails, hostname: x(256) }, "browserDetails.hostname"],
		[
			"hardwareConcurrency not an integer",
			{ ...browserDetails, hardwareConcurrency: 2.5 },
			"browserDetails.hardwareConcurrency",
		],
		["cookieEnabled not a boolean", { ...browserDetails, cookieEnabled: "yes" }, "browserDetails.cookieEnabled"],
		["languages not an array", { ...browserDetails, languages: "en" }, "browserDetails.languages"],
		["both spellings of a key", { ...browserDetails, userAgent: "other" }, "browserDetails.user_agent"],
		["absent", undefined, "browserDetails"],
	])("fails on %s", (_case, value, field) => {
		const result = parse(value);
		expect(result.success).toBe(false);
		expect(toFieldIssues(result.error as never).map((issue) => issue.field)).toContain(field);
	});
});

describe("refund and query schemas", () => {
	test.each([
		["amount", 0.1, 0.09],
		["amount", 0.11, 0.105],
		["amount", 5, "5"],
		["transactionId", ids.transaction, "abc"],
		["transactionId", ids.transaction.toLowerCase(), "01JD5Z8Q4V7M1X2C3B4N5P6R7I"],
		["reason", x(1000), x(1001)],
		["merchantId", "M", ""],
	] as const)("refund %s: %j passes, %j fails", (field, good, bad) => {
		expect(issuesOf(refundRequestSchema(), { ...refund, [field]: good })).toEqual([]);
		expect(issuesOf(refundRequestSchema(), { ...refund, [field]: bad }).map((issue) => issue.field)).toContain(field);
	});

	test("queries and refunds need no merchantId (D11), and accept one", () => {
		const { merchantId: _m, ...withoutMerchant } = refund;
		expect(issuesOf(refundRequestSchema(), withoutMerchant)).toEqual([]);
		expect(issuesOf(transactionQueryRequestSchema(), { transactionId: ids.transaction })).toEqual([]);
		expect(issuesOf(refundQueryRequestSchema(), { refundId: ids.refund })).toEqual([]);
		expect(issuesOf(refundQueryRequestSchema(), { merchantId: "M", refundId: ids.refund })).toEqual([]);
	});

	test("transaction and refund queries need a ULID", () => {
		expect(issuesOf(transactionQueryRequestSchema(), { merchantId: "M", transactionId: ids.transaction })).toEqual([]);
		expect(issuesOf(transactionQueryRequestSchema(), { merchantId: "M", transactionId: "42" })[0]?.field).toBe(
			"transactionId",
		);
		expect(issuesOf(refundQueryRequestSchema(), { merchantId: "M", refundId: ids.refund })).toEqual([]);
		expect(issuesOf(refundQueryRequestSchema(), { merchantId: "M" })).toEqual([
			{ field: "refundId", message: "is required" },
		]);
	});

	test("signature: at most 750 characters", () => {
		expect(signatureSchema.safeParse(x(750)).success).toBe(true);
		expect(signatureSchema.safeParse(x(751)).success).toBe(false);
		expect(signatureSchema.safeParse("").success).toBe(false);
	});
});

describe("loopback http (D10) is a schema option", () => {
	const local = checkoutRequestSchema({ allowLoopbackHttp: true });
	test.each(["http://localhost:3000/cb", "http://127.0.0.1/cb", "http://127.10.0.3:8080/cb", "http://[::1]:8080/cb"])(
		"%s passes only with allowLoopbackHttp",
		(url) => {
			expect(issuesOf(local, { ...checkout, callbackUrl: url })).toEqual([]);
			expect(issuesOf(checkoutRequestSchema(), { ...checkout, callbackUrl: url })[0]?.field).toBe("callbackUrl");
		},
	);
	test.each(["http://shop.example/cb", "http://128.0.0.1/cb", "http://localhost.evil.example/cb"])(
		"%s fails even with allowLoopbackHttp",
		(url) => {
			expect(issuesOf(local, { ...checkout, callbackUrl: url })[0]?.message).toMatch(/https/);
		},
	);
});

describe("lengths count characters (code points), not UTF-16 units", () => {
	test("orderRef takes 250 emoji, not 251; billingState (2-255) refuses one emoji and takes two", () => {
		const emoji = "😀";
		expect(issuesOf(checkoutRequestSchema(), { ...checkout, orderRef: emoji.repeat(250) })).toEqual([]);
		expect(issuesOf(checkoutRequestSchema(), { ...checkout, orderRef: emoji.repeat(251) })[0]?.field).toBe("orderRef");
		expect(issuesOf(checkoutRequestSchema(), { ...checkout, billingState: emoji })[0]?.field).toBe("billingState");
		expect(issuesOf(checkoutRequestSchema(), { ...checkout, billingState: emoji.repeat(2) })).toEqual([]);
	});
});
