import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
	AuthenticationError,
	createNotificationHandler,
	GatewayClient,
	type SignedStringForm,
	type Transaction,
	toNodeListener,
} from "../../src/index.js";
import { referenceFormOfText } from "../../src/signing/canonical.js";
import { signText } from "../../src/signing/seal.js";
import { startSandboxServer } from "../../src/testing.js";
import { sortedStringify } from "../support/forms.js";
import { keys } from "../support/vectors.js";
import { MERCHANT_ID, merchant } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startSandboxServer>>;

async function startShop(signedString: SignedStringForm | undefined) {
	const transactions: Transaction[] = [];
	const handler = createNotificationHandler({
		gatewayPublicKey: keys.gatewayPublic,
		signedString,
		onTransaction: (transaction) => void transactions.push(transaction),
		onRefund: () => {},
	});
	const server = createServer(toNodeListener(handler));
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return { url, transactions, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("one signedString option for a gateway that signs differently: sandbox, client and handler agree", () => {
	let gateway: Server;
	let shop: Awaited<ReturnType<typeof startShop>>;
	const client = (signedString: SignedStringForm | undefined) =>
		new GatewayClient({
			baseUrl: gateway.url,
			merchantId: MERCHANT_ID,
			privateKey: keys.merchantPrivate,
			gatewayPublicKey: keys.gatewayPublic,
			allowLoopbackHttp: true,
			signedString,
		});
	const order = (orderRef: string) => ({
		orderRef,
		amount: 12.5,
		currency: "EUR",
		paymentMethod: "checkout",
		orderDescription: "Tea",
		callbackUrl: `${shop.url}/callback`,
		notificationUrl: `${shop.url}/ipn`,
		cancelUrl: `${shop.url}/cancel`,
		errorUrl: `${shop.url}/error`,
		// Integer-like keys out of order: JavaScript iterates them first, and body and signature must agree.
		metadata: { z: "last", "10": "ten", "9": "nine" },
	});

	beforeAll(async () => {
		gateway = await startSandboxServer({
			gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
			merchants: [merchant()],
			signedString: sortedStringify,
		});
		shop = await startShop(sortedStringify);
	});
	afterAll(async () => {
		await gateway.close();
		await shop.close();
	});

	test("with the same form everywhere, create and query verify", async () => {
		const sdk = client(sortedStringify);
		const session = await sdk.checkout.create(order(`custom-${Date.now()}`));
		const transaction = await sdk.transactions.retrieve(session.transactionId);
		expect(transaction.metadata).toEqual({ z: "last", "10": "ten", "9": "nine" });
	});

	test("client on the reference form: the sandbox refuses the request as the gateway does (HTTP 500)", async () => {
		await expect(client(undefined).checkout.create(order(`reference-${Date.now()}`))).rejects.toThrow(
			AuthenticationError,
		);
	});
});

describe("the sandbox verifies requests in the body's own order (the reference form)", () => {
	test("a request whose nested integer-like keys are not ascending verifies from its text, as PHP would", async () => {
		const gateway = await startSandboxServer({
			gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
			merchants: [merchant()],
		});
		try {
			// Written by another implementation: "10" before "9", which no JavaScript object can hold.
			const fields = [
				`"merchantId":"${MERCHANT_ID}"`,
				`"orderRef":"text-order-${Date.now()}"`,
				'"amount":10',
				'"currency":"EUR"',
				'"paymentMethod":"checkout"',
				'"orderDescription":"Tea"',
				...["callbackUrl", "notificationUrl", "cancelUrl", "errorUrl"].map(
					(name) => `"${name}":"https://shop.example/${name}"`,
				),
				'"metadata":{"10":"ten","9":"nine"}',
			];
			const text = `{${fields.join(",")}}`;
			const signature = signText(referenceFormOfText(text), keys.merchantPrivate);
			const body = `${text.slice(0, -1)},"signature":"${signature}"}`;
			const post = (json: string) =>
				fetch(`${gateway.url}/v2/checkout`, {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: json,
				});
			const response = await post(body);
			expect(response.status).toBe(200);
			expect(await response.json()).toMatchObject({ status: "created" });
			// The same fields re-serialized by JSON.parse/stringify ("9" first) no longer match the signature.
			expect((await post(JSON.stringify(JSON.parse(body)))).status).toBe(500);
		} finally {
			await gateway.close();
		}
	});
});
