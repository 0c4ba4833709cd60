import { decodeTime } from "ulid";
import { describe, expect, test } from "vitest";
import { openCallbackUrl, openMessage, sealMessage } from "../../src/signing/index.js";
import type { SandboxEvent } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { checkoutFields, MERCHANT_ID, postForm, signedPost, tokenOf, useSandboxFixture } from "./helpers.js";

const fixture = useSandboxFixture();
const { sandbox } = fixture;

const gateway = { publicKey: keys.gatewayPublic };

const { createSession } = fixture;

describe("checkout creation", () => {
	test("a 2.0 account gets a flat signed response with a payment link to the hosted page", async () => {
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
		const response = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url), {
			signVersion: "2.1",
		});
		expect(response.status).toBe(200);
		expect(response.json.signVersion).toBe("2.1");
		expect(typeof response.json.payload).toBe("string");
		expect(openMessage(response.json, { ...gateway, acceptVersions: ["2.1"] }).status).toBe("created");
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

	test("an unknown merchant is refused like a bad signature, naming the merchant ids the sandbox knows", async () => {
		const events: SandboxEvent[] = [];
		const server = await sandbox({ onEvent: (event) => events.push(event) });
		const response = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, { merchantId: "nobody" }),
		);
		// The gateway's message first (the SDK reads it as an authentication failure), then the ids it knows.
		const known = `(this sandbox has no merchant nobody; its merchant ids: ${MERCHANT_ID})`;
		const message = `Invalid signature with merchantId: nobody ${known}`;
		expect(response).toEqual({ status: 500, json: { status: "error", message } });
		const detail = expect.stringMatching(/no merchant account .*; its merchant ids: merchant-1$/);
		expect(events).toContainEqual(expect.objectContaining({ type: "request", status: 500, detail }));
	});

	test("field rules respond 422 'Invalid request data.' with errors[] of field and message[]", async () => {
		const server = await sandbox();
		const response = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, {
				amount: 0.5,
				currency: "EURO",
				callbackUrl: "http://example.com/cb",
				orderDescription: "",
			}),
		);
		expect(response.status).toBe(422);
		expect(response.json).toMatchObject({ status: "error", message: "Invalid request data." });
		const errors = response.json.errors as { field: string; message: string[] }[];
		const fields = errors.map((e) => e.field).sort();
		expect(fields).toEqual(["amount", "callbackUrl", "currency", "orderDescription"]);
		expect(errors.find((e) => e.field === "amount")?.message).toEqual(["The amount field must be at least 1."]);
		const [callbackUrl] = errors.find((e) => e.field === "callbackUrl")?.message ?? [];
		expect(callbackUrl).toMatch(/^The callback url field must be an https URL/);
	});

	test("http notification URLs: loopback only, and refused altogether when allowLoopbackHttp is off", async () => {
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
		const response = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url));
		expect(response.status).toBe(400);
		expect(response.json).toMatchObject({ status: "error", transactionId: null, paymentLink: null });
		expect(typeof response.json.message).toBe("string");
		const allowed = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, { websiteUrl: "https://www.shop.example/" }),
		);
		expect(allowed.status).toBe(200);
	});
});

describe("hosted checkout page", () => {
	test("shows amount, description, brandName/colorMode/logo, escaped; no external script or stylesheet", async () => {
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

	test("the approved card pays: IPN successful, browser sent to callbackUrl with a verifiable payload", async () => {
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

	test("hosted page, pending card: back to callbackUrl as pending; the IPN waits for the final outcome", async () => {
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
