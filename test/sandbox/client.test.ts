import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
	AuthenticationError,
	type CardChargeParams,
	CheckoutError,
	createNotificationHandler,
	type GatewayClientOptions,
	GatewayValidationError,
	NoS2SProviderError,
	OutcomeUnknownError,
	ProcessingError,
	type Refund,
	type Transaction,
	toNodeListener,
} from "../../src/index.js";
import { keys } from "../support/vectors.js";
import {
	cardFields,
	FACE_NAMES,
	faceClient,
	MERCHANT_ID,
	merchant,
	postForm,
	type SandboxFace,
	startFace,
} from "./helpers.js";

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

describe.each(FACE_NAMES)("GatewayClient against the sandbox over %s", (faceName) => {
	let face: SandboxFace;
	let shop: Awaited<ReturnType<typeof startMerchant>>;
	const client = (overrides: Partial<GatewayClientOptions> = {}) => faceClient(face, overrides);
	const urls = () => ({
		callbackUrl: `${shop.url}/callback`,
		notificationUrl: `${shop.url}/ipn`,
		cancelUrl: `${shop.url}/cancel`,
		errorUrl: `${shop.url}/error`,
	});
	let n = 0;
	const orderRef = () => `${faceName}-${Date.now()}-${++n}`;
	const cardParams = (number: string) => {
		const { merchantId: _m, paymentMethod: _p, ...params } = cardFields(shop.url, number, { orderRef: orderRef() });
		return params as unknown as CardChargeParams;
	};
	const checkoutParams = () => {
		const order = { orderRef: orderRef(), amount: 5, currency: "EUR", orderDescription: "x" };
		return { ...order, paymentMethod: "checkout", ...urls() };
	};
	/** The transaction as the merchant's IPN route received it. */
	const ipnOf = (transactionId: string) => shop.transactions.find((t) => t.transactionId === transactionId);
	/** Submits a sandbox page's form as a browser would: the link's token and `fields`. */
	const submit = (link: string, fields: Record<string, string>) => {
		const url = new URL(link);
		return postForm(`${url.origin}${url.pathname}`, { token: url.searchParams.get("token") ?? "", ...fields });
	};

	beforeAll(async () => {
		// The merchant's IPN receiver is real loopback HTTP: MSW lets requests to it through.
		const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
		face = await startFace(faceName, { gatewayKeys, merchants: accounts(), ipn: { timeScale: 0.001 } }, "bypass");
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
			expect(session.message).toBe("Payment Link created successfully");
			expect(session.transactionId).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
			const unpaid = await gateway.transactions.retrieve(session.transactionId);
			expect(unpaid).toMatchObject({ status: "incomplete", statusCode: 1 });
			const link = new URL(session.paymentLink);
			const paid = await postForm(`${link.origin}${link.pathname}`, {
				token: link.searchParams.get("token") ?? "",
				action: "approve",
			});
			const callback = gateway.callbacks.decode(paid.location ?? "");
			expect(callback).toMatchObject({
				status: "successful",
				transactionId: session.transactionId,
				amount: 49.99,
				currency: "EUR",
			});
			await face.sandbox.whenIdle();
			expect(shop.transactions.find((t) => t.transactionId === session.transactionId)?.status).toBe("successful");

			const transaction = await gateway.transactions.retrieve(session.transactionId);
			expect(transaction).toMatchObject({ status: "successful", statusCode: 6, amount: 49.99, paidAmount: 49.99 });

			const created = await gateway.refunds.create({
				transactionId: session.transactionId,
				amount: 10,
				reason: "one boot",
			});
			expect(created.approval).toBe("pending_approval");
			expect(created.refundNumber).toMatch(/^\d{4}-\d{10}$/);
			const held = await gateway.refunds.retrieve(created.refundId);
			expect(held).toMatchObject({ status: "refund_under_review", statusCode: 10 });
			face.sandbox.approveRefund(created.refundId);
			const rejected = await gateway.refunds.create({ transactionId: session.transactionId, amount: 5 });
			face.sandbox.rejectRefund(rejected.refundId, "Not eligible");
			await face.sandbox.whenIdle();
			const ipnsOf = (refundId: string) => shop.refunds.filter((r) => r.refundId === refundId);
			const statuses = (refundId: string) => ipnsOf(refundId).map((r) => [r.status, r.statusCode]);
			expect(statuses(created.refundId)).toEqual([
				["refund_under_review", 10],
				["refund_successful", 11],
			]);
			expect(statuses(rejected.refundId)).toEqual([
				["refund_under_review", 10],
				["refund_failed", 9],
			]);
			expect(await gateway.refunds.retrieve(created.refundId)).toMatchObject({
				status: "refund_successful",
				statusCode: 11,
				refundAmount: 10,
			});
			expect(await gateway.refunds.retrieve(rejected.refundId)).toMatchObject({
				status: "refund_failed",
				statusCode: 9,
			});

			// The buyer cancels another session on the hosted page: canceled (14), through the handler and the query.
			const other = await gateway.checkout.create({
				orderRef: orderRef(),
				amount: 5,
				currency: "EUR",
				paymentMethod: "checkout",
				orderDescription: "x",
				...urls(),
			});
			const canceled = await submit(other.paymentLink, { action: "cancel" });
			expect(gateway.callbacks.decode(canceled.location ?? "").status).toBe("canceled");
			await face.sandbox.whenIdle();
			expect(ipnOf(other.transactionId)).toMatchObject({ status: "canceled", statusCode: 14 });
			const queried = await gateway.transactions.retrieve(other.transactionId);
			expect(queried).toMatchObject({ status: "canceled", statusCode: 14 });
		},
	);

	test("S2S charges: success, 3DS redirect, pending; declines and HPP-only map to typed errors", async () => {
		const gateway = client();
		const card = cardParams;
		expect(await gateway.card.charge(card("4242424242424242"))).toMatchObject({
			outcome: "success",
			message: "The transaction has been successfully completed.",
		});
		const threeDs = await gateway.card.charge(card("4000000000000036"));
		expect(threeDs).toMatchObject({
			outcome: "redirect",
			message: "Please redirect the user to complete the payment.",
		});
		if (threeDs.outcome === "redirect") {
			const waiting = await gateway.transactions.retrieve(threeDs.transactionId);
			expect(waiting).toMatchObject({ status: "pending", statusCode: 2 });
			const done = await submit(threeDs.redirectUrl, { password: "123456" });
			expect(gateway.callbacks.decode(done.location ?? "").status).toBe("successful");
		}
		const pending = await gateway.card.charge(card("4000000000000044"));
		expect(pending.outcome).toBe("pending");
		const settling = await gateway.transactions.retrieve(pending.transactionId);
		expect(settling).toMatchObject({ status: "pending", statusCode: 2 });
		const declined = await gateway.card.charge(card("4000000000001018")).catch((e: unknown) => e);
		expect(declined).toBeInstanceOf(ProcessingError);
		const declinedId = (declined as ProcessingError).transactionId ?? "";
		expect(await gateway.transactions.retrieve(declinedId)).toMatchObject({ status: "failed", statusCode: 4 });
		await face.sandbox.whenIdle();
		expect(ipnOf(declinedId)).toMatchObject({ status: "failed", statusCode: 4 });
		const hppOnly = await client({ merchantId: "hpp-only" })
			.card.charge(card("4000000000000010"))
			.catch((e: unknown) => e);
		expect(hppOnly).toBeInstanceOf(NoS2SProviderError);
	});

	test("gateway refusals: duplicate orderRef (422), wrong key (HTTP 500), domain check (checkout fails)", async () => {
		const gateway = client();
		const params = {
			orderRef: orderRef(),
			amount: 5,
			currency: "EUR",
			paymentMethod: "checkout",
			orderDescription: "x",
			...urls(),
		};
		await gateway.checkout.create(params);
		const duplicate = await gateway.checkout.create(params).catch((e: unknown) => e);
		expect(duplicate).toBeInstanceOf(GatewayValidationError);
		const messages = ["The order ref field has already been taken."];
		expect((duplicate as GatewayValidationError).errors).toEqual([{ field: "orderRef", messages }]);
		expect((duplicate as GatewayValidationError).message).toContain("Invalid request data.");
		const forged = await client({ privateKey: keys.gatewayPrivate })
			.checkout.create({ ...params, orderRef: orderRef() })
			.catch((e: unknown) => e);
		expect(forged).toBeInstanceOf(AuthenticationError);
		face.sandbox.addMerchant({
			merchantId: `strict-${faceName}`,
			publicKey: keys.merchantPublic,
			allowedDomains: ["shop.example"],
		});
		const refused = await client({ merchantId: `strict-${faceName}` })
			.checkout.create({ ...params, orderRef: orderRef() })
			.catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(CheckoutError);
	});

	test("a request signed with the wrong key: HTTP 500, an AuthenticationError, creates included", async () => {
		const gateway = client();
		const paid = await gateway.card.charge(cardParams("4000000000000010"));
		const forger = client({ privateKey: keys.gatewayPrivate });
		const statuses: number[] = [];
		const hooks = { onResponse: (r: { status: number }) => void statuses.push(r.status) };
		const watched = client({ privateKey: keys.gatewayPrivate, hooks });
		const calls: [string, () => Promise<unknown>][] = [
			["checkout", () => forger.checkout.create(checkoutParams())],
			["card", () => forger.card.charge(cardParams("4000000000000010"))],
			["refund", () => forger.refunds.create({ transactionId: paid.transactionId, amount: 1 })],
			["transaction query", () => forger.transactions.retrieve(paid.transactionId)],
			["transaction query, not retried", () => watched.transactions.retrieve(paid.transactionId)],
		];
		for (const [name, call] of calls) {
			const error = await call().catch((e: unknown) => e);
			expect(error, name).toBeInstanceOf(AuthenticationError);
			expect(error, name).not.toBeInstanceOf(OutcomeUnknownError);
			expect((error as AuthenticationError).status).toBe(500);
			expect((error as AuthenticationError).message).toContain(`Invalid signature with merchantId: ${MERCHANT_ID}`);
		}
		expect(statuses).toEqual([500]);
	});

	test.each([false, true])("D11: exact bodies of queries and refunds (alwaysSendMerchantId %s)", async (always) => {
		const sent: Record<string, unknown>[] = [];
		// A create's body is a one-shot stream (fetch cannot send it twice): read it, and send the text on.
		const recording: typeof fetch = async (input, init) => {
			const body = init?.body instanceof ReadableStream ? await new Response(init.body).text() : String(init?.body);
			sent.push(JSON.parse(body) as Record<string, unknown>);
			return fetch(input, { ...init, body });
		};
		const plain = client();
		const paid = await plain.card.charge(cardParams("4000000000000010"));
		const gateway = client({ fetch: recording, ...(always ? { alwaysSendMerchantId: true } : {}) });
		expect((await gateway.transactions.retrieve(paid.transactionId)).status).toBe("successful");
		const created = await gateway.refunds.create({ transactionId: paid.transactionId, amount: 1, reason: "test" });
		expect((await gateway.refunds.retrieve(created.refundId)).status).toBe("refund_under_review");
		const merchant = always ? { merchantId: MERCHANT_ID } : {};
		const signature = expect.any(String);
		expect(sent).toEqual([
			{ ...merchant, transactionId: paid.transactionId, signature },
			{ ...merchant, transactionId: paid.transactionId, amount: 1, reason: "test", signature },
			{ ...merchant, refundId: created.refundId, signature },
		]);
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
