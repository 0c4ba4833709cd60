import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { GatewayClient } from "../../src/client.js";
import { decodeCallback } from "../../src/notifications/callback.js";
import { createNotificationHandler } from "../../src/notifications/handler.js";
import { toNodeListener } from "../../src/notifications/node-listener.js";
import { type SandboxServer, startSandboxServer } from "../../src/sandbox/server.js";
import type { CallbackResult, Transaction } from "../../src/schemas/resources.js";
import { keys } from "../helpers/vectors.js";

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
// Outside CI a machine without Chromium skips, and says so; in CI the browser test must run.
const skip = !available && !process.env.CI;
if (skip)
	console.warn(`Browser test skipped: no Chromium at ${CHROMIUM} (install Debian's chromium package; CI never skips).`);

describe.skipIf(skip)("a real browser on the sandbox's hosted checkout page", () => {
	let browser: Browser;
	let sandbox: SandboxServer;
	let shop: { url: string; close(): Promise<void> };
	const ipns: Transaction[] = [];
	const verifiedCallbacks: CallbackResult[] = [];
	/** Pages the shop serves as they are, such as DIRECT_POST forms. */
	const shopPages = new Map<string, string>();
	let gateway: GatewayClient;

	beforeAll(async () => {
		sandbox = await startSandboxServer({
			gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
			merchants: [{ merchantId: "browser-shop", publicKey: keys.merchantPublic, brandName: "Browser Shop" }],
		});
		const ipnRoute = toNodeListener(
			createNotificationHandler({
				gatewayPublicKey: keys.gatewayPublic,
				onTransaction: (t) => void ipns.push(t),
				onRefund: () => {},
			}),
		);
		// The merchant's site: the IPN route and the pages the buyer lands on.
		const server = createServer((req: IncomingMessage, res: ServerResponse) => {
			const url = new URL(req.url ?? "/", "http://shop.local");
			if (url.pathname === "/ipn") return ipnRoute(req, res);
			res.setHeader("content-type", "text/html; charset=utf-8");
			const page = shopPages.get(url.pathname);
			if (page !== undefined) return void res.end(page);
			if (url.pathname === "/return") {
				try {
					const result = decodeCallback(url, { gatewayPublicKey: keys.gatewayPublic });
					verifiedCallbacks.push(result);
					res.end(`<h1 id="result">Payment verified: ${result.status}</h1>`);
				} catch {
					res.writeHead(400).end(`<h1 id="result">Callback rejected</h1>`);
				}
				return;
			}
			res.end(`<h1 id="result">Landed on ${url.pathname}</h1>`);
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		shop = {
			url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
			close: () =>
				new Promise<void>((resolve) => {
					server.closeAllConnections();
					server.close(() => resolve());
				}),
		};
		gateway = new GatewayClient({
			baseUrl: sandbox.url,
			merchantId: "browser-shop",
			privateKey: keys.merchantPrivate,
			gatewayPublicKey: keys.gatewayPublic,
			allowLoopbackHttp: true,
		});
		browser = await chromium.launch({
			executablePath: CHROMIUM,
			args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
		});
	});

	afterAll(async () => {
		await browser?.close();
		await sandbox?.close();
		await shop?.close();
	});

	const session = (orderRef: string) =>
		gateway.checkout.create({
			orderRef,
			amount: 42.5,
			currency: "EUR",
			paymentMethod: "checkout",
			orderDescription: "A browser-tested order",
			callbackUrl: `${shop.url}/return`,
			notificationUrl: `${shop.url}/ipn`,
			cancelUrl: `${shop.url}/cancel`,
			errorUrl: `${shop.url}/error`,
		});

	test("pays with the success card, lands on the merchant's callback page whose payload verifies, and the IPN reached the merchant", async () => {
		const { transactionId, paymentLink } = await session(`browser-${Date.now()}`);
		const page = await browser.newPage();
		await page.goto(paymentLink);
		expect(await page.textContent("[data-testid=amount]")).toBe("42.50 EUR");
		expect(await page.textContent("h1")).toBe("Browser Shop");
		await page.fill("#cardName", "Ada Lovelace");
		await page.fill("#cardNumber", "4000 0000 0000 0010");
		await page.fill("#cardExpiry", "12/39");
		await page.fill("#cardSecurityCode", "123");
		await Promise.all([page.waitForURL(`${shop.url}/return?**`), page.click("#pay")]);
		expect(await page.textContent("#result")).toBe("Payment verified: successful");
		expect(verifiedCallbacks.find((c) => c.transactionId === transactionId)).toMatchObject({
			status: "successful",
			amount: 42.5,
			currency: "EUR",
		});
		await sandbox.sandbox.whenIdle();
		expect(ipns.find((t) => t.transactionId === transactionId)?.status).toBe("successful");
		expect(
			sandbox.sandbox.deliveries().find((d) => d.eventId === `transaction:${transactionId}:successful`)?.outcome,
		).toBe("acknowledged");
		await page.close();
	});

	/** The shop serves a DIRECT_POST form page and the browser posts it: the page, and the sandbox's answer. */
	async function submitDirectPost(html: string) {
		const path = `/direct-post-${shopPages.size}`;
		shopPages.set(path, html);
		const page = await browser.newPage();
		const [answer] = await Promise.all([
			page.waitForResponse((response) => response.url() === `${sandbox.url}/v2/checkout`),
			page.goto(`${shop.url}${path}`),
		]);
		return { page, answer };
	}

	const directPostParams = (orderRef: string) => ({
		orderRef,
		amount: 19.99,
		currency: "EUR",
		paymentMethod: "checkout" as const,
		// Line breaks as a textarea gives them (LF), a lone CR, and CR LF: the browser posts each as CR LF.
		orderDescription: "Two tickets\nRow 5, seats 11-12\rDoors open 19:30\r\nBring this order",
		callbackUrl: `${shop.url}/return`,
		notificationUrl: `${shop.url}/ipn`,
		cancelUrl: `${shop.url}/cancel`,
		errorUrl: `${shop.url}/error`,
	});

	test.each(["2.0", "2.1"] as const)(
		"a %s DIRECT_POST form with line breaks, posted by the browser, is accepted",
		async (signVersion) => {
			const orderRef = `browser-direct-${signVersion}-${Date.now()}`;
			const client = new GatewayClient({
				baseUrl: sandbox.url,
				merchantId: "browser-shop",
				privateKey: keys.merchantPrivate,
				gatewayPublicKey: keys.gatewayPublic,
				allowLoopbackHttp: true,
				signVersion,
			});
			const { page, answer } = await submitDirectPost(client.checkout.directPost(directPostParams(orderRef)).html);
			expect(answer.status()).toBe(303);
			await page.waitForURL(`${sandbox.url}/pay/**`);
			expect(await page.textContent("[data-testid=amount]")).toBe("19.99 EUR");
			const description = await page.textContent(".description");
			const lines = ["Two tickets", "Row 5, seats 11-12", "Doors open 19:30", "Bring this order"];
			expect(description?.split(/\r\n|\r|\n/)).toEqual(lines);
			expect(sandbox.sandbox.transactions().some((t) => t.ref === orderRef)).toBe(true);
			await page.close();
		},
	);

	test("a refused DIRECT_POST form (signed with an unknown key) gets an HTML page, not JSON", async () => {
		const impostor = new GatewayClient({
			baseUrl: sandbox.url,
			merchantId: "browser-shop",
			privateKey: keys.gatewayPrivate,
			gatewayPublicKey: keys.gatewayPublic,
			allowLoopbackHttp: true,
		});
		const forged = impostor.checkout.directPost(directPostParams(`browser-forged-${Date.now()}`));
		const { page, answer } = await submitDirectPost(forged.html);
		// The gateway answers a request it cannot verify with HTTP 500 (D12); a browser gets a page.
		expect(answer.status()).toBe(500);
		expect(answer.headers()["content-type"]).toMatch(/^text\/html/);
		expect(await page.textContent("h1")).toBe("Checkout refused");
		expect(await page.textContent("main")).toContain("Invalid signature with merchantId: browser-shop");
		await page.close();
	});

	test("cancelling lands on cancelUrl", async () => {
		const { transactionId, paymentLink } = await session(`browser-cancel-${Date.now()}`);
		const page = await browser.newPage();
		await page.goto(paymentLink);
		await Promise.all([page.waitForURL(`${shop.url}/cancel?**`), page.click("#cancel")]);
		expect(await page.textContent("#result")).toBe("Landed on /cancel");
		expect(decodeCallback(page.url(), { gatewayPublicKey: keys.gatewayPublic }).status).toBe("canceled");
		expect(sandbox.sandbox.transaction(transactionId)).toMatchObject({ status: "canceled", statusCode: 14 });
		await page.close();
	});

	test.each([
		["123456", "/return", "successful"],
		["111111", "/error", "failed"],
	])("the 3DS card goes to the 3DS page; the guide's password %s ends on %s, %s", async (password, landing, status) => {
		const { transactionId, paymentLink } = await session(`browser-3ds-${password}-${Date.now()}`);
		const page = await browser.newPage();
		await page.goto(paymentLink);
		// The page lists the gateway guide's cards and the 3DS passwords beside the sandbox's own.
		const help = await page.textContent("#test-cards");
		expect(help).toMatch(
			/123456 confirms the payment and 111111 makes it fail[\s\S]*4242 4242 4242 4242[\s\S]*4000 0000 0000 1018/,
		);
		await page.fill("#cardNumber", "4000 0000 0000 0036");
		await page.fill("#cardExpiry", "12/30");
		await page.fill("#cardSecurityCode", "123");
		await Promise.all([page.waitForURL(`${sandbox.url}/3ds/**`), page.click("#pay")]);
		expect(sandbox.sandbox.transaction(transactionId)).toMatchObject({ status: "pending", statusCode: 2 });
		await page.fill("#password", "000000");
		await page.click("#submit-password");
		expect(await page.textContent("[role=alert]")).toContain("That password is wrong");
		await page.fill("#password", password);
		await Promise.all([page.waitForURL(`${shop.url}${landing}?**`), page.click("#submit-password")]);
		expect(decodeCallback(page.url(), { gatewayPublicKey: keys.gatewayPublic }).status).toBe(status);
		await sandbox.sandbox.whenIdle();
		expect(ipns.find((t) => t.transactionId === transactionId)?.status).toBe(status);
		await page.close();
	});
});
