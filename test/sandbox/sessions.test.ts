import { describe, expect, test, vi } from "vitest";
import { openMessage, sealMessage } from "../../src/signing/index.js";
import { keys } from "../support/vectors.js";
import { cardFields, checkoutFields, MERCHANT_ID, postForm, signedPost, useSandboxFixture } from "./helpers.js";

const fixture = useSandboxFixture();
const { sandbox } = fixture;

const gateway = { publicKey: keys.gatewayPublic };

const { createSession } = fixture;

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

	test("a session's paymentPath is the path of the hosted page link its checkout answered with", async () => {
		const server = await sandbox({ now: "2026-11-22T10:00:00Z" });
		const { transactionId, paymentLink } = await createSession(server);
		const { pathname, search } = new URL(paymentLink);
		expect(server.sandbox.transaction(transactionId)?.paymentPath).toBe(`${pathname}${search}`);
		expect(pathname).toBe(`/pay/${transactionId}`);
		expect((await fetch(new URL(`${pathname}${search}`, server.url))).status).toBe(200);
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
		const response = await signedPost(
			server.url,
			"/v2/checkout",
			checkoutFields(fixture.receiver.url, { expiresAt: "2026-11-22T09:00:00Z" }),
		);
		expect(response.status).toBe(422);
		const message = ["The expires at field must be a date after now."];
		expect(response.json.errors).toEqual([{ field: "expiresAt", message }]);
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

test("the transaction query returns the resource in the account's form; 404 for another merchant's", async () => {
	const server = await sandbox({ merchant: { signVersion: "2.1" } });
	server.sandbox.addMerchant({ merchantId: "merchant-2", publicKey: keys.merchantPublic });
	const { transactionId } = await createSession(server, { metadata: { cart: 7 } });
	const response = await signedPost(server.url, "/v2/checkout/query", { merchantId: MERCHANT_ID, transactionId });
	expect(response.status).toBe(200);
	expect(response.json.signVersion).toBe("2.1");
	const transaction = openMessage(response.json, gateway);
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
	const { createSandbox } = await import("../../src/sandbox/create-sandbox.js");
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
