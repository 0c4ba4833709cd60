import { decodeTime } from "ulid";
import { describe, expect, test, vi } from "vitest";
import type { SandboxEvent } from "../../src/sandbox/options.js";
import { openCallbackUrl } from "../../src/signing/callback-url.js";
import { openMessage } from "../../src/signing/open.js";
import { sealMessage } from "../../src/signing/seal.js";
import { keys } from "../helpers/vectors.js";
import {
	cardFields,
	checkoutFields,
	MERCHANT_ID,
	postForm,
	type SandboxServer,
	signedPost,
	startSandbox,
	useSandboxFixture,
} from "./helpers.js";

type Server = SandboxServer;
const fixture = useSandboxFixture();
const { sandbox } = fixture;

const gateway = { publicKey: keys.gatewayPublic };

async function createSession(server: Server, overrides: Record<string, unknown> = {}) {
	const reply = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url, overrides));
	expect(reply.status).toBe(200);
	const fields = openMessage(reply.json, gateway);
	return { transactionId: String(fields.transactionId), paymentLink: String(fields.paymentLink), fields };
}

function tokenOf(link: string): string {
	return new URL(link).searchParams.get("token") ?? "";
}

describe("checkout creation", () => {
	test("a 2.0 account gets a flat signed answer with a payment link to the hosted page", async () => {
		const server = await sandbox({ now: "2025-07-22T20:00:48.250Z" });
		const { fields, paymentLink } = await createSession(server);
		expect(fields).toMatchObject({ status: "created", message: "Payment Link created successfully" });
		// D12: lowercase ULIDs, numbers of year-month and Unix seconds from the sandbox clock, dates with +00:00.
		expect(String(fields.transactionId)).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
		expect(decodeTime(String(fields.transactionId))).toBe(Date.parse("2025-07-22T20:00:48.250Z"));
		expect(paymentLink.startsWith(`${server.url}/pay/`)).toBe(true);
		const transaction = server.sandbox.transaction(String(fields.transactionId));
		expect(transaction).toMatchObject({
			status: "incomplete",
			statusCode: 1,
			transactionNumber: "2507-1753214448",
			transactionCreatedAt: "2025-07-22T20:00:48+00:00",
			expiresAt: "2025-07-23T20:00:48+00:00",
		});
		const upper = String(fields.transactionId).toUpperCase();
		expect(server.sandbox.transaction(upper)?.transactionId).toBe(fields.transactionId);
	});

	test("a 2.1 account gets payload, signVersion and signature, and 2.1 requests are accepted", async () => {
		const server = await sandbox({ merchant: { signVersion: "2.1" } });
		const reply = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url), {
			signVersion: "2.1",
		});
		expect(reply.status).toBe(200);
		expect(reply.json.signVersion).toBe("2.1");
		expect(typeof reply.json.payload).toBe("string");
		expect(openMessage(reply.json, { ...gateway, acceptVersions: ["2.1"] }).status).toBe("created");
	});

	test("requests signed with another key, tampered with, or unsigned: HTTP 500 'Invalid signature'", async () => {
		const server = await sandbox();
		const refusal = { status: "error", message: `Invalid signature with merchantId: ${MERCHANT_ID}` };
		const wrongKey = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url), {
			privateKey: keys.gatewayPrivate,
		});
		expect(wrongKey).toEqual({ status: 500, json: refusal });

		const sealed = sealMessage(checkoutFields(fixture.receiver.url), { privateKey: keys.merchantPrivate });
		const tampered = await fetch(`${server.url}/v2/checkout`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ ...sealed, amount: 1 }),
		});
		expect(tampered.status).toBe(500);
		expect(await tampered.json()).toEqual(refusal);

		const unsigned = await fetch(`${server.url}/v2/checkout`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(checkoutFields(fixture.receiver.url)),
		});
		expect(unsigned.status).toBe(500);
		expect(await unsigned.json()).toEqual(refusal);
		expect(server.sandbox.transactions()).toHaveLength(0);
	});

	test("a 2.1 request whose payload was changed after signing is refused", async () => {
		const server = await sandbox();
		const sealed = sealMessage(checkoutFields(fixture.receiver.url), {
			privateKey: keys.merchantPrivate,
			signVersion: "2.1",
		});
		const response = await fetch(`${server.url}/v2/checkout`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ ...sealed, payload: sealed.payload.replace('"amount":100', '"amount":1') }),
		});
		expect(response.status).toBe(500);
	});

	test("an unknown merchant is refused like a bad signature, and the sandbox's event says why", async () => {
		const events: SandboxEvent[] = [];
		const server = await sandbox({ onEvent: (event) => events.push(event) });
		const reply = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, { merchantId: "nobody" }),
		);
		const message = "Invalid signature with merchantId: nobody";
		expect(reply).toEqual({ status: 500, json: { status: "error", message } });
		const detail = expect.stringMatching(/no merchant account/);
		expect(events).toContainEqual(expect.objectContaining({ type: "request", status: 500, detail }));
	});

	test("field rules answer 422 'Invalid request data.' with errors[] of field and message[]", async () => {
		const server = await sandbox();
		const reply = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, {
				amount: 0.5,
				currency: "EURO",
				callbackUrl: "http://example.com/cb",
				orderDescription: "",
			}),
		);
		expect(reply.status).toBe(422);
		expect(reply.json).toMatchObject({ status: "error", message: "Invalid request data." });
		const errors = reply.json.errors as { field: string; message: string[] }[];
		const fields = errors.map((e) => e.field).sort();
		expect(fields).toEqual(["amount", "callbackUrl", "currency", "orderDescription"]);
		expect(errors.find((e) => e.field === "amount")?.message).toEqual(["The amount field must be at least 1."]);
		const [callbackUrl] = errors.find((e) => e.field === "callbackUrl")?.message ?? [];
		expect(callbackUrl).toMatch(/^The callback url field must be an https URL/);
	});

	test("http notification URLs are accepted on loopback only, and refused altogether when allowLoopbackHttp is off", async () => {
		const strict = await sandbox({ allowLoopbackHttp: false });
		const refused = await signedPost(strict.url, "/v2/checkout", checkoutFields(fixture.receiver.url));
		expect(refused.status).toBe(422);
		const lenient = await sandbox();
		const remote = await signedPost(
			lenient.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, { notificationUrl: "http://example.com/ipn" }),
		);
		expect(remote.status).toBe(422);
		expect((remote.json.errors as { field: string }[])[0]?.field).toBe("notificationUrl");
	});

	test("orderRef is unique per merchant", async () => {
		const server = await sandbox();
		server.sandbox.addMerchant({ merchantId: "merchant-2", publicKey: keys.merchantPublic });
		const fields = checkoutFields(fixture.receiver.url, { orderRef: "same-ref" });
		expect((await signedPost(server.url, "/v2/checkout", fields)).status).toBe(200);
		const again = await signedPost(server.url, "/v2/checkout", fields);
		expect(again.status).toBe(422);
		expect(again.json.errors).toEqual([
			{ field: "orderRef", message: ["The order ref field has already been taken."] },
		]);
		const otherMerchant = await signedPost(server.url, "/v2/checkout", { ...fields, merchantId: "merchant-2" });
		expect(otherMerchant.status).toBe(200);
	});

	test("a website outside the allowed domains gets the checkout creation failure shape", async () => {
		const server = await sandbox({ merchant: { allowedDomains: ["shop.example"] } });
		const reply = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url));
		expect(reply.status).toBe(400);
		expect(reply.json).toMatchObject({ status: "error", transactionId: null, paymentLink: null });
		expect(typeof reply.json.message).toBe("string");
		const allowed = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, { websiteUrl: "https://www.shop.example/" }),
		);
		expect(allowed.status).toBe(200);
	});
});

describe("hosted checkout page", () => {
	test("shows amount, description and the brandName / colorMode / logo overrides, escaped, with no external script or stylesheet", async () => {
		const server = await sandbox();
		const { paymentLink } = await createSession(server, {
			amount: 12.5,
			orderDescription: "Two <b>tickets</b>",
			brandName: "Acme & Co",
			colorMode: "#ff0000---navy---rgba(0,0,0,0.1)",
			logoSource: "https://cdn.example/logo.png",
		});
		const response = await fetch(paymentLink);
		const html = await response.text();
		expect(response.status).toBe(200);
		expect(response.headers.get("content-type")).toMatch(/text\/html/);
		expect(html).toContain("12.50 EUR");
		expect(html).toContain("Two &lt;b&gt;tickets&lt;/b&gt;");
		expect(html).toContain("Acme &amp; Co");
		expect(html).toContain("border-bottom:3px solid #ff0000");
		expect(html).toContain('<img src="https://cdn.example/logo.png"');
		expect(html).not.toMatch(/<script|<link /);
	});

	test("a link with a wrong token is not found", async () => {
		const server = await sandbox();
		const { paymentLink } = await createSession(server);
		const wrong = paymentLink.replace(/token=[0-9a-f]+/, "token=00");
		expect((await fetch(wrong)).status).toBe(404);
	});

	test("paying with the approved card: IPN successful, browser sent to callbackUrl with a verifiable payload", async () => {
		const server = await sandbox();
		const { transactionId, paymentLink } = await createSession(server);
		const page = await postForm(paymentLink.split("?")[0] ?? "", {
			token: tokenOf(paymentLink),
			action: "pay",
			cardNumber: "4000 0000 0000 0010",
			cardMonth: "12",
			cardYear: "39",
			cardSecurityCode: "123",
			cardName: "Ada Lovelace",
		});
		expect(page.status).toBe(303);
		const location = page.location ?? "";
		expect(location.startsWith(`${fixture.receiver.url}/callback?payload=`)).toBe(true);
		expect(openCallbackUrl(location, gateway).fields).toMatchObject({
			status: "successful",
			transactionId,
			ref: expect.any(String),
			amount: 100,
			currency: "EUR",
		});
		await server.sandbox.whenIdle();
		const ipns = fixture.receiver.ipns.map((r) => openMessage(r.body, gateway));
		const ipn = ipns.find((f) => f.transactionId === transactionId);
		expect(ipn).toMatchObject({ status: "successful", statusCode: 6 });
		expect(ipn?.paymentMethodDetails).toMatchObject({
			card: { firstSixDigits: "400000", lastFourDigits: "0010", name: "Ada Lovelace" },
		});
		// A paid session cannot be paid twice.
		expect((await fetch(paymentLink)).status).toBe(409);
	});

	test("an invalid card is refused on the page without echoing it", async () => {
		const server = await sandbox();
		const { paymentLink } = await createSession(server);
		const page = await postForm(paymentLink.split("?")[0] ?? "", {
			token: tokenOf(paymentLink),
			action: "pay",
			cardNumber: "4000000000000011",
			cardMonth: "13",
			cardYear: "39",
			cardSecurityCode: "1",
		});
		expect(page.status).toBe(422);
		expect(page.text).toContain("This card number is not valid");
		expect(page.text).not.toContain("4000000000000011");
	});

	test("simulate failure sends the buyer to errorUrl and the IPN says failed", async () => {
		const server = await sandbox();
		const { transactionId, paymentLink } = await createSession(server);
		const page = await postForm(paymentLink.split("?")[0] ?? "", { token: tokenOf(paymentLink), action: "fail" });
		expect(page.location?.startsWith(`${fixture.receiver.url}/error?payload=`)).toBe(true);
		expect(openCallbackUrl(page.location ?? "", gateway).fields.status).toBe("failed");
		await server.sandbox.whenIdle();
		expect(server.sandbox.deliveries().find((d) => d.eventId === `transaction:${transactionId}:failed`)?.outcome).toBe(
			"acknowledged",
		);
	});

	test("cancel sends the buyer to cancelUrl and the IPN says canceled (14)", async () => {
		const server = await sandbox({ merchant: { signVersion: "2.1" } });
		const { transactionId, paymentLink } = await createSession(server);
		const page = await postForm(paymentLink.split("?")[0] ?? "", { token: tokenOf(paymentLink), action: "cancel" });
		expect(page.location?.startsWith(`${fixture.receiver.url}/cancel?payload=`)).toBe(true);
		const callback = openCallbackUrl(page.location ?? "", gateway);
		expect(callback).toMatchObject({ signVersion: "2.1", fields: { status: "canceled", transactionId } });
		await server.sandbox.whenIdle();
		expect(server.sandbox.transaction(transactionId)).toMatchObject({ status: "canceled", statusCode: 14 });
		const ipns = fixture.receiver.ipns.map((r) => openMessage(r.body, gateway));
		const ipn = ipns.find((f) => f.transactionId === transactionId);
		expect(ipn).toMatchObject({ status: "canceled", statusCode: 14 });
	});

	test("a pending card on the hosted page returns the buyer to callbackUrl with status pending; the IPN waits for the final outcome", async () => {
		const server = await sandbox({ now: "2026-11-22T10:00:00Z", pendingDelayMs: 60_000 });
		const { transactionId, paymentLink } = await createSession(server);
		const page = await postForm(paymentLink.split("?")[0] ?? "", {
			token: tokenOf(paymentLink),
			action: "pay",
			cardNumber: "4000000000000044",
			cardMonth: "12",
			cardYear: "39",
			cardSecurityCode: "123",
		});
		expect(openCallbackUrl(page.location ?? "", gateway).fields.status).toBe("pending");
		await server.sandbox.whenIdle();
		expect(server.sandbox.deliveries().filter((d) => d.eventId.startsWith(`transaction:${transactionId}`))).toEqual([]);
		server.sandbox.clock.advance(60_000);
		await server.sandbox.whenIdle();
		expect(server.sandbox.deliveries().map((d) => d.eventId)).toContain(`transaction:${transactionId}:successful`);
	});

	test("the 3DS card on the hosted page goes through the 3DS page", async () => {
		const server = await sandbox();
		const { transactionId, paymentLink } = await createSession(server);
		const page = await postForm(paymentLink.split("?")[0] ?? "", {
			token: tokenOf(paymentLink),
			action: "pay",
			cardNumber: "4000000000000036",
			cardMonth: "01",
			cardYear: "38",
			cardSecurityCode: "999",
		});
		expect(page.location).toBe(`${server.url}/3ds/${transactionId}?token=${tokenOf(paymentLink)}`);
		const challenge = await fetch(page.location ?? "");
		expect(await challenge.text()).toContain("Authenticate");
		const done = await postForm(`${server.url}/3ds/${transactionId}`, { token: tokenOf(paymentLink), result: "pass" });
		expect(openCallbackUrl(done.location ?? "", gateway).fields.status).toBe("successful");
	});
});

describe("expiry", () => {
	test("a session expires at expiresAt on the sandbox clock: page 410, status expired, IPN sent", async () => {
		const server = await sandbox({ now: "2026-11-22T10:00:00Z" });
		const { transactionId, paymentLink } = await createSession(server, { expiresAt: "2026-11-22T10:30:00Z" });
		server.sandbox.clock.advance(29 * 60_000);
		expect((await fetch(paymentLink)).status).toBe(200);
		server.sandbox.clock.advance(60_000);
		expect(server.sandbox.transaction(transactionId)?.status).toBe("expired");
		expect((await fetch(paymentLink)).status).toBe(410);
		await server.sandbox.whenIdle();
		expect(server.sandbox.deliveries().some((d) => d.eventId === `transaction:${transactionId}:expired`)).toBe(true);
	});

	test("without expiresAt a session lasts 24 hours", async () => {
		const server = await sandbox({ now: "2026-11-22T10:00:00Z" });
		const { transactionId } = await createSession(server);
		expect(server.sandbox.transaction(transactionId)?.expiresAt).toBe("2026-11-23T10:00:00+00:00");
		server.sandbox.clock.advance(24 * 3_600_000 - 1);
		expect(server.sandbox.transaction(transactionId)?.status).toBe("incomplete");
		server.sandbox.clock.advance(1);
		expect(server.sandbox.transaction(transactionId)).toMatchObject({ status: "expired", statusCode: 16 });
	});

	test("an expiresAt in the past is refused", async () => {
		const server = await sandbox({ now: "2026-11-22T10:00:00Z" });
		const reply = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, { expiresAt: "2026-11-22T09:00:00Z" }),
		);
		expect(reply.status).toBe(422);
		const message = ["The expires at field must be a date after now."];
		expect(reply.json.errors).toEqual([{ field: "expiresAt", message }]);
	});
});

describe("DIRECT_POST", () => {
	test("a signed form post redirects the browser to the hosted page (2.0 flat fields)", async () => {
		const server = await sandbox();
		// The SDK's form encoding: every value a string (nested values as JSON text), signed as posted.
		const fields = checkoutFields(fixture.receiver.url, { amount: 25.5, metadata: { cart: "42" } });
		const strings: Record<string, string> = {};
		for (const [key, value] of Object.entries(fields))
			strings[key] = typeof value === "string" ? value : JSON.stringify(value);
		const form = sealMessage(strings, { privateKey: keys.merchantPrivate });
		const response = await postForm(`${server.url}/v2/checkout`, form);
		expect(response.status).toBe(303);
		expect(response.location?.startsWith(`${server.url}/pay/`)).toBe(true);
		const transaction = server.sandbox.transactions()[0];
		expect(transaction?.amount).toBe(25.5);
		expect(transaction?.metadata).toEqual({ cart: "42" });
	});

	test("a 2.1 form post (payload, signVersion, signature) is accepted; a bad one gets an HTML error page", async () => {
		const server = await sandbox();
		const sealed = sealMessage(checkoutFields(fixture.receiver.url), {
			privateKey: keys.merchantPrivate,
			signVersion: "2.1",
		});
		const response = await postForm(`${server.url}/v2/checkout`, { ...sealed });
		expect(response.status).toBe(303);
		const invalid = sealMessage(checkoutFields(fixture.receiver.url, { amount: 0 }), {
			privateKey: keys.merchantPrivate,
			signVersion: "2.1",
		});
		const refused = await postForm(`${server.url}/v2/checkout`, { ...invalid });
		expect(refused.status).toBe(422);
		expect(refused.text).toContain("<code>amount</code>");
	});

	test("a browser form that cannot be read or verified also gets an HTML page, never JSON", async () => {
		const server = await sandbox();
		const fields = checkoutFields(fixture.receiver.url);
		const strings = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, String(value)]));
		const multipart = new FormData();
		for (const [key, value] of Object.entries(strings)) multipart.append(key, value);
		const refusals = [
			// Signed with a key the sandbox does not know for this merchant: the gateway's HTTP 500 refusal (D12).
			{
				status: 500,
				body: new URLSearchParams(sealMessage(strings, { privateKey: keys.gatewayPrivate }) as Record<string, string>),
			},
			{ status: 500, body: new URLSearchParams({ ...strings, signature: "not-a-signature" }) },
			{ status: 415, body: multipart },
		];
		for (const { status, body } of refusals) {
			const response = await fetch(`${server.url}/v2/checkout`, { method: "POST", body, redirect: "manual" });
			expect(response.status).toBe(status);
			expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
			expect(await response.text()).toContain("<h1>Checkout refused</h1>");
		}
		// An API client sending JSON still gets JSON.
		const json = await signedPost(server.url, "/v2/checkout", fields, { privateKey: keys.gatewayPrivate });
		expect(json.status).toBe(500);
		expect(json.json.status).toBe("error");
	});
});

test("the transaction query answers the full resource in the account's form, and 404 for another merchant's transaction", async () => {
	const server = await sandbox({ merchant: { signVersion: "2.1" } });
	server.sandbox.addMerchant({ merchantId: "merchant-2", publicKey: keys.merchantPublic });
	const { transactionId } = await createSession(server, { metadata: { cart: 7 } });
	const reply = await signedPost(server.url, "/v2/checkout/query", { merchantId: MERCHANT_ID, transactionId });
	expect(reply.status).toBe(200);
	expect(reply.json.signVersion).toBe("2.1");
	const transaction = openMessage(reply.json, gateway);
	expect(transaction).toMatchObject({
		merchantId: MERCHANT_ID,
		transactionId,
		status: "incomplete",
		statusCode: 1,
		amount: 100,
		currency: "EUR",
		metadata: { cart: 7 },
	});
	for (const key of [
		"transactionNumber",
		"ref",
		"paidAmount",
		"settlementAmount",
		"fees",
		"descriptor",
		"transactionCreatedAt",
	])
		expect(transaction).toHaveProperty(key);
	const other = await signedPost(server.url, "/v2/checkout/query", { merchantId: "merchant-2", transactionId });
	expect(other.status).toBe(404);
});

test("D11: a query without merchantId is verified with the key of its transaction's merchant", async () => {
	const server = await sandbox();
	const { transactionId } = await createSession(server);
	const bare = await signedPost(server.url, "/v2/checkout/query", { transactionId: transactionId.toUpperCase() });
	expect(bare.status).toBe(200);
	const found = openMessage(bare.json, gateway);
	expect(found).toMatchObject({ transactionId, merchantId: MERCHANT_ID, status: "incomplete" });
	const forger = { privateKey: keys.gatewayPrivate };
	const forged = await signedPost(server.url, "/v2/checkout/query", { transactionId }, forger);
	const message = `Invalid signature with merchantId: ${MERCHANT_ID}`;
	expect(forged).toEqual({ status: 500, json: { status: "error", message } });
	const unknown = await signedPost(server.url, "/v2/checkout/query", { transactionId: "01k0svjxa7rxj0wwz0cqb85r6a" });
	expect(unknown.status).toBe(404);
});

test("on a real-time clock, advance() shortens what is still scheduled", async () => {
	const { createSandbox } = await import("../../src/sandbox/sandbox.js");
	const sandbox = await createSandbox({
		gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
		merchants: [{ merchantId: MERCHANT_ID, publicKey: keys.merchantPublic }],
		pendingDelayMs: 3_600_000,
		// The IPNs of this test are not its subject: their deliveries fail at once, with no retry.
		ipn: { retryDelaysMs: [], fetch: async () => Response.error() },
	});
	// Real time is simulated: the sandbox clock follows Date.now, and its timers are setTimeout.
	vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
	try {
		const fields = cardFields(fixture.receiver.url, "4000000000000044");
		const body = JSON.stringify(sealMessage(fields, { privateKey: keys.merchantPrivate }));
		const headers = { "content-type": "application/json" };
		const request = new Request("http://sandbox.test/v2/card/api", { method: "POST", headers, body });
		const transactionId = String(openMessage(await (await sandbox.fetch(request)).json(), gateway).transactionId);
		sandbox.clock.advance(3_599_990);
		expect(sandbox.transaction(transactionId)?.status).toBe("pending");
		// 10 ms of real time remain: the re-armed timer settles it without another advance.
		vi.advanceTimersByTime(9);
		expect(sandbox.transaction(transactionId)?.status).toBe("pending");
		vi.advanceTimersByTime(1);
		expect(sandbox.transaction(transactionId)?.status).toBe("successful");
	} finally {
		vi.useRealTimers();
		sandbox.close();
	}
});

test("sandbox options are checked at creation, naming the option", async () => {
	const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
	const { createSandbox } = await import("../../src/sandbox/sandbox.js");
	await expect(createSandbox({ gatewayKeys, baseUrl: "ftp://x" })).rejects.toThrow(/baseUrl/);
	await expect(createSandbox({ gatewayKeys, pendingDelayMs: -1 })).rejects.toThrow(/pendingDelayMs/);
	await expect(createSandbox({ gatewayKeys, ipn: { timeScale: -1 } })).rejects.toThrow(/timeScale/);
	await expect(createSandbox({ gatewayKeys, ipn: { ackTimeoutMs: 0 } })).rejects.toThrow(/ackTimeoutMs/);
	await expect(
		createSandbox({ gatewayKeys, merchants: [{ merchantId: "", publicKey: keys.merchantPublic }] }),
	).rejects.toThrow(/merchantId/);
	await expect(
		createSandbox({ gatewayKeys, merchants: [{ merchantId: "m", publicKey: "not a key" }] }),
	).rejects.toThrow(/public key/);
	await expect(startSandbox({ host: "192.0.2.1" })).rejects.toThrow(/allowNonLoopback/);
});

test("a wrong sandbox option or argument is a ConfigurationError naming each option and its rule", async () => {
	const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
	const { ConfigurationError } = await import("../../src/errors/index.js");
	const { createSandbox } = await import("../../src/sandbox/sandbox.js");
	const refused = await createSandbox({
		gatewayKeys,
		pendingDelayMs: -1,
		now: "yesterday",
		ipn: { duplicates: 11 },
	}).catch((error: unknown) => error);
	expect(refused).toBeInstanceOf(ConfigurationError);
	expect((refused as InstanceType<typeof ConfigurationError>).issues.map((issue) => issue.field)).toEqual([
		"pendingDelayMs",
		"now",
		"ipn.duplicates",
	]);
	const merchants = [{ merchantId: "m", publicKey: keys.merchantPublic, feeBySeller: 101 }];
	await expect(createSandbox({ gatewayKeys, merchants })).rejects.toThrow(ConfigurationError);
	const sandbox = await createSandbox({
		gatewayKeys,
		merchants: [{ merchantId: "m", publicKey: keys.merchantPublic }],
	});
	try {
		expect(() => sandbox.addMerchant({ merchantId: "m", publicKey: keys.merchantPublic })).toThrow(
			/merchantId: m is already registered/,
		);
		expect(() => sandbox.clock.advance(-1)).toThrow(ConfigurationError);
		expect(() => sandbox.clock.set(0)).toThrow(/cannot go backwards/);
		expect(() => sandbox.approveRefund("01k0svjxa7rxj0wwz0cqb85r6a")).toThrow(ConfigurationError);
		expect(() => sandbox.redeliver("dlv_999999")).toThrow(ConfigurationError);
	} finally {
		sandbox.close();
	}
});
