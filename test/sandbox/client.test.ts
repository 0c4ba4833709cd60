import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { GatewayClient } from "../../src/client.js";
import { AuthenticationError, CheckoutError, GatewayValidationError, NoS2SProviderError, ProcessingError } from "../../src/errors/index.js";
import { createNotificationHandler } from "../../src/notifications/handler.js";
import { toNodeListener } from "../../src/notifications/node-listener.js";
import { sandboxHandlers } from "../../src/sandbox/msw.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/sandbox.js";
import { startSandboxServer } from "../../src/sandbox/server.js";
import type { Refund, Transaction } from "../../src/schemas/resources.js";
import { keys } from "../helpers/vectors.js";
import { cardFields, MERCHANT_ID, merchant, postForm } from "./helpers.js";

/** The merchant's IPN route, built with the SDK's own handler, on real loopback HTTP. */
async function startMerchant() {
	const transactions: Transaction[] = [];
	const refunds: Refund[] = [];
	const handler = createNotificationHandler({
		gatewayPublicKey: keys.gatewayPublic,
		onTransaction: (t) => void transactions.push(t),
		onRefund: (r) => void refunds.push(r),
	});
	const server = createServer(toNodeListener(handler));
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return { url, transactions, refunds, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A 2.0 and a 2.1 account, both holding refunds for approval, and an HPP-only one. */
const accounts = () => [
	merchant({ refundApproval: "manual" }),
	merchant({ merchantId: "merchant-21", signVersion: "2.1", refundApproval: "manual" }),
	merchant({ merchantId: "hpp-only", providers: [{ name: "Hosted", kind: "hpp" }] }),
];

interface Face {
	sandbox: Sandbox;
	baseUrl: string;
	close(): Promise<void>;
}

const faces: Record<string, () => Promise<Face>> = {
	msw: async () => {
		const sandbox = await createSandbox({
			gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
			merchants: accounts(),
			ipn: { timeScale: 0.001 },
		});
		const server = setupServer(...sandboxHandlers(sandbox));
		// The merchant's IPN receiver is real loopback HTTP: let MSW pass it through.
		server.listen({ onUnhandledFrame: "bypass" });
		return {
			sandbox,
			baseUrl: sandbox.baseUrl,
			close: async () => {
				server.close();
				sandbox.close();
			},
		};
	},
	http: async () => {
		const server = await startSandboxServer({
			gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
			merchants: accounts(),
			ipn: { timeScale: 0.001 },
		});
		return { sandbox: server.sandbox, baseUrl: server.url, close: () => server.close() };
	},
};

describe.each(Object.keys(faces))("GatewayClient against the sandbox over %s", (faceName) => {
	let face: Face;
	let shop: Awaited<ReturnType<typeof startMerchant>>;
	const client = (overrides: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
		new GatewayClient({
			baseUrl: face.baseUrl,
			merchantId: MERCHANT_ID,
			privateKey: keys.merchantPrivate,
			gatewayPublicKey: face.sandbox.gatewayPublicKey,
			allowLoopbackHttp: true,
			...overrides,
		});
	const urls = () => ({
		callbackUrl: `${shop.url}/callback`,
		notificationUrl: `${shop.url}/ipn`,
		cancelUrl: `${shop.url}/cancel`,
		errorUrl: `${shop.url}/error`,
	});
	let n = 0;
	const orderRef = () => `${faceName}-${Date.now()}-${++n}`;

	beforeAll(async () => {
		face = await (faces[faceName] as () => Promise<Face>)();
		shop = await startMerchant();
	});
	afterAll(async () => {
		await face.close();
		await shop.close();
	});

	test.each(["2.0", "2.1"] as const)(
		"checkout, hosted payment, IPN, callback, query, held refund, approval, refund query (signing %s)",
		async (signVersion) => {
			const gateway = client({ signVersion, merchantId: signVersion === "2.1" ? "merchant-21" : MERCHANT_ID });
			const session = await gateway.checkout.create({
				orderRef: orderRef(),
				amount: 49.99,
				currency: "EUR",
				paymentMethod: "checkout",
				orderDescription: "Boots",
				...urls(),
			});
			const link = new URL(session.paymentLink);
			const paid = await postForm(`${link.origin}${link.pathname}`, { token: link.searchParams.get("token") ?? "", action: "approve" });
			const callback = gateway.callbacks.decode(paid.location ?? "");
			expect(callback).toMatchObject({ status: "successful", transactionId: session.transactionId, amount: 49.99, currency: "EUR" });
			await face.sandbox.whenIdle();
			expect(shop.transactions.find((t) => t.transactionId === session.transactionId)?.status).toBe("successful");

			const transaction = await gateway.transactions.retrieve(session.transactionId);
			expect(transaction).toMatchObject({ status: "successful", statusCode: 6, amount: 49.99, paidAmount: 49.99 });

			const created = await gateway.refunds.create({ transactionId: session.transactionId, amount: 10, reason: "one boot" });
			expect(created.approval).toBe("pending_approval");
			expect((await gateway.refunds.retrieve(created.refundId)).status).toBe("refund_pending_approval");
			face.sandbox.approveRefund(created.refundId);
			await face.sandbox.whenIdle();
			expect(shop.refunds.filter((r) => r.refundId === created.refundId).map((r) => r.status)).toEqual(["refund_pending_approval", "refund_successful"]);
			expect(await gateway.refunds.retrieve(created.refundId)).toMatchObject({ status: "refund_successful", statusCode: 11, refundAmount: 10 });
		},
	);

	test("S2S charges: success, 3DS redirect, pending; declines and HPP-only map to typed errors", async () => {
		const gateway = client();
		const card = (number: string) => {
			const { merchantId: _m, paymentMethod: _p, ...params } = cardFields(shop.url, number, { orderRef: orderRef() });
			return params as unknown as Parameters<typeof gateway.card.charge>[0];
		};
		expect((await gateway.card.charge(card("4000000000000010"))).outcome).toBe("success");
		const threeDs = await gateway.card.charge(card("4000000000000036"));
		expect(threeDs.outcome).toBe("redirect");
		if (threeDs.outcome === "redirect") {
			const url = new URL(threeDs.redirectUrl);
			const done = await postForm(`${url.origin}${url.pathname}`, { token: url.searchParams.get("token") ?? "", result: "pass" });
			expect(gateway.callbacks.decode(done.location ?? "").status).toBe("successful");
		}
		expect((await gateway.card.charge(card("4000000000000044"))).outcome).toBe("pending");
		const declined = await gateway.card.charge(card("4000000000000028")).catch((e: unknown) => e);
		expect(declined).toBeInstanceOf(ProcessingError);
		expect((declined as ProcessingError).transactionId).toEqual(expect.any(String));
		const hppOnly = await client({ merchantId: "hpp-only" })
			.card.charge(card("4000000000000010"))
			.catch((e: unknown) => e);
		expect(hppOnly).toBeInstanceOf(NoS2SProviderError);
	});

	test("gateway-side refusals: duplicate orderRef (422), wrong key (401), domain check (checkout failure)", async () => {
		const gateway = client();
		const params = { orderRef: orderRef(), amount: 5, currency: "EUR", paymentMethod: "checkout", orderDescription: "x", ...urls() };
		await gateway.checkout.create(params);
		const duplicate = await gateway.checkout.create(params).catch((e: unknown) => e);
		expect(duplicate).toBeInstanceOf(GatewayValidationError);
		expect((duplicate as GatewayValidationError).errors[0]?.field).toBe("orderRef");
		const forged = await client({ privateKey: keys.gatewayPrivate })
			.checkout.create({ ...params, orderRef: orderRef() })
			.catch((e: unknown) => e);
		expect(forged).toBeInstanceOf(AuthenticationError);
		face.sandbox.addMerchant({ merchantId: `strict-${faceName}`, publicKey: keys.merchantPublic, allowedDomains: ["shop.example"] });
		const refused = await client({ merchantId: `strict-${faceName}` })
			.checkout.create({ ...params, orderRef: orderRef() })
			.catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(CheckoutError);
	});

	test("DIRECT_POST: the client's signed form is accepted and redirects to the hosted page", async () => {
		for (const signVersion of ["2.0", "2.1"] as const) {
			const form = client({ signVersion }).checkout.directPost({
				orderRef: orderRef(),
				amount: 12.3,
				currency: "EUR",
				paymentMethod: "checkout",
				orderDescription: "Form",
				metadata: { basket: [1, 2] },
				...urls(),
			});
			const response = await postForm(form.action, form.fields);
			expect(response.status, signVersion).toBe(303);
			expect(response.location).toContain("/pay/");
		}
	});
});
