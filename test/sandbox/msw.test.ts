import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createNotificationHandler, GatewayClient, type Transaction } from "../../src/index.js";
import { createSandbox, type Sandbox } from "../../src/testing.js";
import { sandboxHandlers } from "../../src/testing-msw.js";
import { keys } from "../support/vectors.js";

// Everything in-process: the gateway (sandbox) and the merchant's IPN route are
// both MSW handlers, so https URLs work and nothing listens on a port.
let sandbox: Sandbox;
const received: Transaction[] = [];
const server = setupServer();

beforeAll(async () => {
	sandbox = await createSandbox({
		gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
		merchants: [{ merchantId: "msw-shop", publicKey: keys.merchantPublic }],
		allowLoopbackHttp: false,
	});
	const ipn = createNotificationHandler({
		gatewayPublicKey: sandbox.gatewayPublicKey,
		onTransaction: (t) => void received.push(t),
		onRefund: () => {},
	});
	server.use(
		...sandboxHandlers(sandbox),
		http.post("https://shop.example/ipn", ({ request }) => ipn(request)),
		http.get("https://shop.example/*", () => HttpResponse.text("merchant page")),
	);
	server.listen({ onUnhandledFrame: "error" });
});
afterAll(() => {
	server.close();
	sandbox.close();
});

const gateway = () =>
	new GatewayClient({
		baseUrl: sandbox.baseUrl,
		merchantId: "msw-shop",
		privateKey: keys.merchantPrivate,
		gatewayPublicKey: sandbox.gatewayPublicKey,
	});

test("a checkout paid on the hosted page, entirely over MSW, with https merchant URLs", async () => {
	const session = await gateway().checkout.create({
		orderRef: "msw-1",
		amount: 30,
		currency: "USD",
		paymentMethod: "checkout",
		orderDescription: "In-process",
		callbackUrl: "https://shop.example/return",
		notificationUrl: "https://shop.example/ipn",
		cancelUrl: "https://shop.example/cancel",
		errorUrl: "https://shop.example/error",
	});
	expect(session.paymentLink.startsWith(`${sandbox.baseUrl}/pay/`)).toBe(true);
	const page = await fetch(session.paymentLink);
	expect(await page.text()).toContain("30.00 USD");
	const link = new URL(session.paymentLink);
	const paid = await fetch(`${link.origin}${link.pathname}`, {
		method: "POST",
		headers: { "content-type": "application/x-www-form-urlencoded" },
		body: new URLSearchParams({ token: link.searchParams.get("token") ?? "", action: "approve" }),
		redirect: "manual",
	});
	expect(paid.status).toBe(303);
	expect(gateway().callbacks.decode(paid.headers.get("location") ?? "")).toMatchObject({
		status: "successful",
		ref: "msw-1",
	});
	await sandbox.whenIdle();
	expect(received.map((t) => [t.ref, t.status])).toEqual([["msw-1", "successful"]]);
	expect(sandbox.deliveries()[0]?.outcome).toBe("acknowledged");
});

test("the sandbox clock drives expiry without waiting", async () => {
	const { transactionId } = await gateway().checkout.create({
		orderRef: "msw-2",
		amount: 5,
		currency: "USD",
		paymentMethod: "checkout",
		orderDescription: "Expires",
		callbackUrl: "https://shop.example/return",
		notificationUrl: "https://shop.example/ipn",
		cancelUrl: "https://shop.example/cancel",
		errorUrl: "https://shop.example/error",
	});
	sandbox.clock.advance(25 * 3_600_000);
	expect((await gateway().transactions.retrieve(transactionId)).status).toBe("expired");
	await sandbox.whenIdle();
	expect(received.find((t) => t.transactionId === transactionId)).toMatchObject({ status: "expired", statusCode: 16 });
});
