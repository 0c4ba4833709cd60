import { existsSync, mkdirSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
	type CallbackResult,
	createNotificationHandler,
	decodeCallback,
	GatewayClient,
	type Transaction,
	toNodeListener,
} from "../../src/index.js";
import { colorNames, parseColor, toHex } from "../../src/sandbox/pages/colors.js";
import { type SandboxServer, startSandboxServer } from "../../src/testing.js";
import { keys } from "../support/vectors.js";

const CHROMIUM = "/usr/bin/chromium";
/** Where the screenshots go, kept by CI as artifacts (gitignored): <page>-<width>.png. */
const SCREENSHOTS = fileURLToPath(new URL("../../artifacts/screenshots/", import.meta.url));
const WIDTHS = [390, 1280] as const;
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

	test("success card: back on the merchant's callback page, payload verified; the merchant got the IPN", async () => {
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

	/** The shop serves a DIRECT_POST form page and the browser posts it: the page, and the sandbox's response. */
	async function submitDirectPost(html: string) {
		const path = `/direct-post-${shopPages.size}`;
		shopPages.set(path, html);
		const page = await browser.newPage();
		const [response] = await Promise.all([
			page.waitForResponse((response) => response.url() === `${sandbox.url}/v2/checkout`),
			page.goto(`${shop.url}${path}`),
		]);
		return { page, response };
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
			const { page, response } = await submitDirectPost(client.checkout.directPost(directPostParams(orderRef)).html);
			expect(response.status()).toBe(303);
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
		const { page, response } = await submitDirectPost(forged.html);
		// The gateway responds to a request it cannot verify with HTTP 500 (D12); a browser gets a page.
		expect(response.status()).toBe(500);
		expect(response.headers()["content-type"]).toMatch(/^text\/html/);
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
	describe("the hosted pages as a buyer sees them", () => {
		/** A second sandbox with a frozen clock, so a session can expire without touching the others. */
		let shopSandbox: SandboxServer;
		let shopGateway: GatewayClient;
		const logo =
			"data:image/svg+xml;base64," +
			Buffer.from(
				'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40">' +
					'<rect width="40" height="40" rx="8" fill="#c2410c"/></svg>',
			).toString("base64");
		// A hostile palette: a light primary (white text would vanish), a pale accent, a dark page.
		const brand = { brandName: "Harbour Books", logoSource: logo, colorMode: "#ffd400---#fff3a0---#202830" };

		beforeAll(async () => {
			shopSandbox = await startSandboxServer({
				now: "2026-11-22T10:00:00Z",
				gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
				merchants: [{ merchantId: "harbour", publicKey: keys.merchantPublic }],
			});
			shopGateway = new GatewayClient({
				baseUrl: shopSandbox.url,
				merchantId: "harbour",
				privateKey: keys.merchantPrivate,
				gatewayPublicKey: keys.gatewayPublic,
				allowLoopbackHttp: true,
			});
			rmSync(SCREENSHOTS, { recursive: true, force: true });
			mkdirSync(SCREENSHOTS, { recursive: true });
		});
		afterAll(async () => {
			await shopSandbox?.close();
		});

		const order = (orderRef: string, extra: Record<string, unknown> = {}) =>
			shopGateway.checkout.create({
				orderRef,
				amount: 24.9,
				currency: "EUR",
				paymentMethod: "checkout",
				orderDescription: "The Tide Tables, paperback",
				callbackUrl: `${shop.url}/return`,
				notificationUrl: `${shop.url}/ipn`,
				cancelUrl: `${shop.url}/cancel`,
				errorUrl: `${shop.url}/error`,
				...brand,
				...extra,
			});

		/** Full-page screenshots at both widths: artifacts/screenshots/<name>-<width>.png. */
		async function screenshots(page: Page, name: string): Promise<void> {
			for (const width of WIDTHS) {
				await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
				await page.screenshot({ path: `${SCREENSHOTS}${name}-${width}.png`, fullPage: true });
			}
		}

		/**
		 * Every element with text of its own (and every placeholder) whose colour, as Chromium computes
		 * it, falls under WCAG AA against the background it is painted on. Computed here in the page,
		 * independently of the sandbox's own colour code.
		 */
		function lowContrastText(page: Page) {
			return page.evaluate(() => {
				const rgba = (text: string) => {
					const [r = 0, g = 0, b = 0, a = 1] = (text.match(/[\d.]+/g) ?? []).map(Number);
					return { r, g, b, a: text.startsWith("rgba") ? a : 1 };
				};
				const over = (top: ReturnType<typeof rgba>, below: ReturnType<typeof rgba>) => ({
					r: top.r * top.a + below.r * (1 - top.a),
					g: top.g * top.a + below.g * (1 - top.a),
					b: top.b * top.a + below.b * (1 - top.a),
					a: 1,
				});
				const backgroundOf = (element: Element | null): ReturnType<typeof rgba> => {
					if (!element) return { r: 255, g: 255, b: 255, a: 1 };
					const own = rgba(getComputedStyle(element).backgroundColor);
					if (own.a >= 1) return own;
					return over(own, backgroundOf(element.parentElement));
				};
				const luminance = (c: { r: number; g: number; b: number }) => {
					const lin = (v: number) => {
						const x = v / 255;
						return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
					};
					return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
				};
				const ratio = (a: ReturnType<typeof rgba>, b: ReturnType<typeof rgba>) => {
					const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
					return (x + 0.05) / (y + 0.05);
				};
				const failures: string[] = [];
				let checked = 0;
				for (const element of document.querySelectorAll("body *")) {
					const style = getComputedStyle(element);
					const background = backgroundOf(element);
					const large =
						Number.parseFloat(style.fontSize) >= 24 ||
						(Number.parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
					const needed = large ? 3 : 4.5;
					const ownText = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent?.trim());
					const text = ownText || element.tagName === "INPUT" || element.tagName === "BUTTON";
					if (text && style.visibility !== "hidden" && style.display !== "none") {
						checked++;
						const value = ratio(over(rgba(style.color), background), background);
						if (value < needed) failures.push(`${element.tagName}#${element.id}: ${value.toFixed(2)} < ${needed}`);
					}
					if (element.tagName === "INPUT" && element.getAttribute("placeholder")) {
						const placeholder = rgba(getComputedStyle(element, "::placeholder").color);
						const value = ratio(over(placeholder, background), background);
						if (value < 4.5) failures.push(`placeholder of #${element.id}: ${value.toFixed(2)}`);
					}
				}
				return { failures, checked };
			});
		}

		async function expectReadable(page: Page) {
			const { failures, checked } = await lowContrastText(page);
			expect(checked).toBeGreaterThan(3);
			expect(failures).toEqual([]);
		}

		test("the payment page: branded, readable at AA with a hostile colorMode, at 390 and 1280 px", async () => {
			const { paymentLink } = await order(`shot-pay-${Date.now()}`);
			const page = await browser.newPage();
			await page.goto(paymentLink);
			expect(await page.textContent("h1")).toBe("Harbour Books");
			expect(await page.getAttribute("header img", "src")).toBe(logo);
			await expectReadable(page);
			await screenshots(page, "checkout");
			await page.close();
		});

		test("a typing mistake the browser catches: nothing is sent and everything typed stays", async () => {
			const { transactionId, paymentLink } = await order(`shot-typo-${Date.now()}`);
			const page = await browser.newPage();
			await page.goto(paymentLink);
			await page.fill("#cardName", "Grace Hopper");
			await page.fill("#cardNumber", "4242 4242 4242 4242");
			await page.fill("#cardExpiry", "13/30");
			await page.fill("#cardSecurityCode", "123");
			await page.click("#pay");
			expect(await page.$eval("#cardExpiry", (el) => (el as HTMLInputElement).validity.patternMismatch)).toBe(true);
			expect(page.url()).toBe(paymentLink);
			expect(await page.inputValue("#cardNumber")).toBe("4242 4242 4242 4242");
			expect(await page.inputValue("#cardSecurityCode")).toBe("123");
			expect(shopSandbox.sandbox.transaction(transactionId)?.status).toBe("incomplete");
			await page.close();
		});

		test("a mistake only the sandbox catches: name and expiry kept, the error beside the card number", async () => {
			const { transactionId, paymentLink } = await order(`shot-luhn-${Date.now()}`);
			const page = await browser.newPage();
			await page.goto(paymentLink);
			await page.fill("#cardName", "Grace Hopper");
			await page.fill("#cardNumber", "4242 4242 4242 4241");
			await page.fill("#cardExpiry", "12/30");
			await page.fill("#cardSecurityCode", "123");
			const [response] = await Promise.all([
				page.waitForResponse((r) => r.request().method() === "POST"),
				page.click("#pay"),
			]);
			expect(response.status()).toBe(422);
			await page.waitForLoadState();
			expect(await page.inputValue("#cardName")).toBe("Grace Hopper");
			expect(await page.inputValue("#cardExpiry")).toBe("12/30");
			expect(await page.inputValue("#cardNumber")).toBe("");
			expect(await page.inputValue("#cardSecurityCode")).toBe("");
			expect(await page.evaluate(() => document.activeElement?.id)).toBe("cardNumber");
			const besideNumber = await page.$eval("#cardNumber", (el) => el.nextElementSibling?.textContent);
			expect(besideNumber).toBe("This card number is not valid. Check the digits and type it again.");
			expect(await page.getAttribute("#cardNumber", "aria-describedby")).toBe("cardNumber-error cardNumber-hint");
			expect(await page.content()).not.toContain("4241");
			await expectReadable(page);
			await screenshots(page, "checkout-mistake");
			// Typed again, the payment goes through.
			await page.fill("#cardNumber", "4242 4242 4242 4242");
			await page.fill("#cardSecurityCode", "123");
			await Promise.all([page.waitForURL(`${shop.url}/return?**`), page.click("#pay")]);
			expect(shopSandbox.sandbox.transaction(transactionId)?.status).toBe("successful");
			await page.close();
		});

		test("3-D Secure, already paid, expired and unknown-link pages: branded, readable, with a way back", async () => {
			const page = await browser.newPage();
			const threeDs = await order(`shot-3ds-${Date.now()}`);
			await page.goto(threeDs.paymentLink);
			await page.fill("#cardNumber", "4000 0000 0000 0036");
			await page.fill("#cardExpiry", "12/30");
			await page.fill("#cardSecurityCode", "123");
			await Promise.all([page.waitForURL(`${shopSandbox.url}/3ds/**`), page.click("#pay")]);
			expect(await page.textContent("h1")).toBe("Harbour Books");
			await expectReadable(page);
			await screenshots(page, "three-ds");
			await page.fill("#password", "123456");
			await Promise.all([page.waitForURL(`${shop.url}/return?**`), page.click("#submit-password")]);

			await page.goto(threeDs.paymentLink);
			expect(await page.textContent("h2")).toBe("Already paid");
			await expectReadable(page);
			await screenshots(page, "already-paid");
			await Promise.all([page.waitForURL(`${shop.url}/return?**`), page.click("#back-to-shop")]);
			expect(decodeCallback(page.url(), { gatewayPublicKey: keys.gatewayPublic }).status).toBe("successful");

			const expiring = await order(`shot-expired-${Date.now()}`, { expiresAt: "2026-11-22T11:00:00Z" });
			shopSandbox.sandbox.clock.advance(2 * 3600_000);
			await page.goto(expiring.paymentLink);
			expect(await page.textContent("h2")).toBe("This payment link has expired");
			await expectReadable(page);
			await screenshots(page, "expired");
			await Promise.all([page.waitForURL(`${shop.url}/error?**`), page.click("#back-to-shop")]);
			expect(decodeCallback(page.url(), { gatewayPublicKey: keys.gatewayPublic }).status).toBe("expired");

			await page.goto(expiring.paymentLink.replace(/token=[^&]+/, "token=typo"));
			expect(await page.textContent("h1")).toBe("Harbour Books");
			expect(await page.textContent("h2")).toBe("Payment link not found");
			await expectReadable(page);
			await screenshots(page, "unknown-link");
			await Promise.all([page.waitForURL(`${shop.url}/`), page.click("#back-to-shop")]);
			await page.close();
		});

		/** Each test card number's rendered line count (its height over its line height) and whether it overflows. */
		function cardNumberLines(page: Page) {
			return page.$$eval("#test-cards tbody tr td:first-child code", (codes) =>
				codes.map((code) => {
					const box = code.getBoundingClientRect();
					const lineHeight = Number.parseFloat(getComputedStyle(code).lineHeight) || box.height;
					const cell = (code.parentElement as Element).getBoundingClientRect();
					return {
						number: code.textContent ?? "",
						lines: Math.round(box.height / lineHeight),
						inside: box.right <= cell.right + 0.5,
					};
				}),
			);
		}

		/**
		 * Buttons painted as a primary action: filled with a colour of their own, unlike the card they sit on.
		 * Secondary actions are outlined or plain text.
		 */
		function filledButtons(page: Page) {
			return page.$$eval("button", (buttons) => {
				const card = getComputedStyle(document.querySelector("main") as Element).backgroundColor;
				return buttons
					.filter((button) => {
						const { backgroundColor } = getComputedStyle(button);
						const transparent = backgroundColor === "transparent" || /rgba\(.*, 0\)$/.test(backgroundColor);
						return !transparent && backgroundColor !== card;
					})
					.map((button) => button.id);
			});
		}

		test.each(WIDTHS)("at %i px each test card number is on one line, inside its cell", async (width) => {
			const { paymentLink } = await order(`shot-cards-${width}-${Date.now()}`);
			const page = await browser.newPage({ viewport: { width, height: 900 } });
			await page.goto(paymentLink);
			const numbers = await cardNumberLines(page);
			expect(numbers.length).toBeGreaterThan(10);
			for (const number of numbers) {
				expect(number.number).toMatch(/^\d{4}( \d{4}){3}$/);
				expect(number).toMatchObject({ lines: 1, inside: true });
			}
			await page.close();
		});

		test("the 3-D Secure page and the payment page each have one primary action", async () => {
			const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
			const { paymentLink } = await order(`shot-primary-${Date.now()}`);
			await page.goto(paymentLink);
			expect(await filledButtons(page)).toEqual(["pay"]);
			await page.fill("#cardNumber", "4000 0000 0000 0036");
			await page.fill("#cardExpiry", "12/30");
			await page.fill("#cardSecurityCode", "123");
			await Promise.all([page.waitForURL(`${shopSandbox.url}/3ds/**`), page.click("#pay")]);
			expect(await filledButtons(page)).toEqual(["submit-password"]);
			expect(await page.textContent("#submit-password")).toBe("Confirm");
			// The sandbox's shortcuts say what they do; none reads as a second way to confirm.
			const others = await page.$$eval("button:not(#submit-password)", (buttons) =>
				buttons.map((button) => (button.textContent ?? "").replace(/\s+/g, " ").trim()),
			);
			expect(others).toEqual([
				"Authenticate without the password",
				"Fail authentication",
				"Cancel and return to Harbour Books",
			]);
			await page.close();
		});

		test("the page's colour names and forms paint as Chromium paints them", async () => {
			const page = await browser.newPage();
			const samples = [
				...colorNames(),
				"transparent",
				"#abc",
				"#abcd",
				"#aabbcc80",
				"rgba(0,0,0,0.1)",
				"rgb(10% 20% 30% / 50%)",
			];
			await page.setContent(samples.map((c, i) => `<div id="c${i}" style="background:${c}"></div>`).join(""));
			const painted = await page.evaluate((count) => {
				const out: string[] = [];
				for (let i = 0; i < count; i++)
					out.push(getComputedStyle(document.getElementById(`c${i}`) as Element).backgroundColor);
				return out;
			}, samples.length);
			const onWhite = (css: string) => {
				const [r = 0, g = 0, b = 0, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
				const alpha = css.startsWith("rgba") ? a : 1;
				const mix = (v: number) => Math.round(v * alpha + 255 * (1 - alpha));
				return `#${[r, g, b].map((v) => mix(v).toString(16).padStart(2, "0")).join("")}`;
			};
			const ours = samples.map((c) => {
				const parsed = parseColor(c);
				return parsed && toHex(parsed);
			});
			// Chromium keeps alpha in 8 bits, so a translucent colour may land one step away.
			const channels = (hex: string | undefined) =>
				[1, 3, 5].map((i) => Number.parseInt(hex?.slice(i, i + 2) ?? "", 16));
			const apart = samples.filter((_, i) => {
				const [a, b] = [channels(ours[i]), channels(onWhite(painted[i] ?? ""))];
				return a.some((v, c) => !(Math.abs(v - (b[c] ?? Number.NaN)) <= 1));
			});
			expect(apart).toEqual([]);
			expect(ours.slice(0, colorNames().length)).toEqual(painted.slice(0, colorNames().length).map(onWhite));
			await page.close();
		});
	});
});
