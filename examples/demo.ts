// The project's main job: a complete merchant integration against the local
// gateway sandbox, narrated step by step. Every step is checked; the exit code
// is 0 only if all of them passed.
//   npm run demo              the buyer is driven over HTTP (a few seconds)
//   npm run demo -- --browser the buyer is you: open the printed links in a browser
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import {
	type CallbackResult,
	type CardChargeParams,
	createNotificationHandler,
	GatewayClient,
	ProcessingError,
	type Refund,
	STATUS_CODES,
	statusFromCode,
	type Transaction,
	toNodeListener,
} from "merchant-gateway";
import { generateKeyPair } from "merchant-gateway/signing";
import { startSandboxServer } from "merchant-gateway/testing";

const { values: flags } = parseArgs({
	options: { browser: { type: "boolean" }, help: { type: "boolean", short: "h" } },
});
if (flags.help) {
	console.log(
		"Usage: npm run demo [-- --browser]\n" +
			"  --browser  print the payment and 3DS links and wait for you to complete them in a browser",
	);
	process.exit(0);
}
const inBrowser = flags.browser === true;
const started = performance.now();

// ---- narration --------------------------------------------------------------

let stepNumber = 0;
function say(text: string): void {
	console.log(`${String(++stepNumber).padStart(3)}. ${text}`);
}
function section(title: string): void {
	console.log(`\n${title}`);
}
/** A check that must hold; the demo stops with exit code 1 at the first one that does not. */
function check(condition: unknown, what: string): void {
	if (!condition) throw new Error(`check failed: ${what}`);
}
const money = (amount: number | undefined, currency: string) => `${(amount ?? 0).toFixed(2)} ${currency}`;

/** Resolves once `condition` holds (checked every 10 ms), or fails after `timeoutMs`. */
function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			clearInterval(poll);
			reject(new Error(`timed out waiting for ${what}`));
		}, timeoutMs);
		const poll = setInterval(() => {
			if (!condition()) return;
			clearTimeout(timer);
			clearInterval(poll);
			resolve();
		}, 10);
	});
}

/** The first item of `list` matching `predicate`, once there is one. */
async function waitFor<T>(list: T[], predicate: (item: T) => boolean, what: string): Promise<T> {
	await until(() => list.some(predicate), what);
	return list.find(predicate) as T;
}

// ---- the merchant's side: keys, IPN route, return pages ----------------------

const MERCHANT_ID = "demo-shop";
const merchantKeys = await generateKeyPair();

const sandboxServer = await startSandboxServer({
	merchants: [
		{ merchantId: MERCHANT_ID, publicKey: merchantKeys.publicKey, refundApproval: "manual", brandName: "Demo Shop" },
	],
	// IPN retries would wait minutes in real time; the demo never needs one, but keep them short.
	ipn: { timeScale: 0.001 },
});
const sandbox = sandboxServer.sandbox;

const gateway = new GatewayClient({
	baseUrl: sandboxServer.url,
	merchantId: MERCHANT_ID,
	privateKey: merchantKeys.privateKey,
	gatewayPublicKey: sandbox.gatewayPublicKey,
	// The sandbox is plain http on loopback; a real gateway is https only.
	allowLoopbackHttp: true,
});

const transactionIpns: Transaction[] = [];
const refundIpns: Refund[] = [];
const callbacks: CallbackResult[] = [];
const landings: string[] = [];

const ipnRoute = toNodeListener(
	createNotificationHandler({
		gatewayPublicKey: sandbox.gatewayPublicKey,
		// Only verified IPNs reach these; resolving them acknowledges with returnCode "100".
		onTransaction: (transaction) => void transactionIpns.push(transaction),
		onRefund: (refund) => void refundIpns.push(refund),
	}),
);

function page(res: ServerResponse, status: number, title: string, text: string): void {
	res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
	res.end(
		`<!doctype html><meta charset="utf-8"><title>${title}</title>` +
			`<h1>${title}</h1><p>${text}</p><p>You can go back to the terminal.</p>`,
	);
}

const merchantServer = createServer((req: IncomingMessage, res: ServerResponse) => {
	const url = new URL(req.url ?? "/", "http://merchant.local");
	if (url.pathname === "/ipn") return ipnRoute(req, res);
	landings.push(url.pathname);
	if (url.pathname === "/return" || url.pathname === "/error" || url.pathname === "/cancel") {
		try {
			const result = gateway.callbacks.decode(url);
			callbacks.push(result);
			return page(
				res,
				200,
				result.status === "successful" ? "Thank you!" : "Payment not completed",
				`Order ${result.ref}: ${result.status}.`,
			);
		} catch {
			return page(res, 400, "Invalid callback", "The callback's signature did not verify.");
		}
	}
	page(res, 404, "Not found", "");
});
await new Promise<void>((resolve) => merchantServer.listen(0, "127.0.0.1", resolve));
const shop = `http://127.0.0.1:${(merchantServer.address() as AddressInfo).port}`;
const merchantUrls = {
	callbackUrl: `${shop}/return`,
	notificationUrl: `${shop}/ipn`,
	cancelUrl: `${shop}/cancel`,
	errorUrl: `${shop}/error`,
};

// ---- the buyer: a browser driven over HTTP, or a person ----------------------

/** Submits a sandbox page form and follows the 303 back to the merchant, as a browser would. */
async function submitAndFollow(formUrl: string, fields: Record<string, string>): Promise<string> {
	const response = await fetch(formUrl, {
		method: "POST",
		headers: { "content-type": "application/x-www-form-urlencoded" },
		body: new URLSearchParams(fields),
		redirect: "manual",
	});
	check(response.status === 303, `the page responded ${response.status}, not a redirect`);
	const location = response.headers.get("location") ?? "";
	const next = new URL(location, formUrl);
	if (next.origin === sandboxServer.url) return next.href;
	const landing = await fetch(next);
	check(landing.ok, `the merchant's return page responded ${landing.status}`);
	return next.href;
}

/** The buyer completes a page; over HTTP with `fields`, or in a real browser. */
async function buyer(
	link: string,
	doing: string,
	fields: Record<string, string>,
	expectedLanding: string,
): Promise<void> {
	const before = landings.length;
	if (inBrowser) {
		console.log(`\n     Open this link in your browser and ${doing}:\n     ${link}\n`);
		await until(() => landings.length > before, "the browser to come back to the merchant", 15 * 60_000);
		return;
	}
	const url = new URL(link);
	const opened = await fetch(url);
	const html = await opened.text();
	check(opened.status === 200, `the page responded ${opened.status}`);
	const token = url.searchParams.get("token") ?? "";
	let location = await submitAndFollow(`${url.origin}${url.pathname}`, { token, ...fields });
	// A 3DS card on the hosted page goes through the 3DS page first: the gateway guide's password 123456 passes.
	const threeDsPage = location.startsWith(`${sandboxServer.url}/3ds/`) ? (location.split("?")[0] ?? "") : undefined;
	if (threeDsPage) location = await submitAndFollow(threeDsPage, { token, password: "123456" });
	check(location.startsWith(`${shop}${expectedLanding}`), `the buyer landed on ${location}, not ${expectedLanding}`);
	check(html.length > 0, "the page was empty");
}

// ---- the flows ----------------------------------------------------------------

async function afterPayment(
	transactionId: string,
	amount: number,
	currency: string,
	refundAmount: number,
): Promise<void> {
	const ipn = await waitFor(transactionIpns, (t) => t.transactionId === transactionId, "the transaction IPN");
	await sandbox.whenIdle();
	const acknowledged = sandbox
		.deliveries()
		.find((d) => d.eventId === `transaction:${transactionId}:${ipn.status}` && d.outcome === "acknowledged");
	check(ipn.status === "successful", `IPN status ${ipn.status}`);
	check(acknowledged, "the gateway recorded no acknowledgement");
	say(
		"The gateway sent the IPN; the merchant's handler verified its signature and acknowledged it " +
			`(returnCode "100"): ${ipn.status}.`,
	);

	const callback = await waitFor(callbacks, (c) => c.transactionId === transactionId, "the callback");
	check(
		callback.status === "successful" && callback.amount === amount && callback.currency === currency,
		"callback fields",
	);
	say(
		"The buyer's browser came back to the merchant; the callback payload verified: " +
			`${callback.status}, ${money(amount, currency)}, order ${callback.ref}.`,
	);

	const transaction = await gateway.transactions.retrieve(transactionId);
	const paid = transaction.status === "successful" && transaction.statusCode === STATUS_CODES.successful;
	check(paid && transaction.amount === amount, "queried transaction");
	const paidAmount = money(transaction.paidAmount, currency);
	const settlementAmount = money(transaction.settlementAmount, currency);
	const settlementDate = transaction.estimationSettlementAt?.slice(0, 10) ?? "n/a";
	say(
		`The merchant queried the transaction: ${transaction.status} (code ${transaction.statusCode}), ` +
			`paid ${paidAmount}, settlement ${settlementAmount} expected ${settlementDate}.`,
	);

	const refund = await gateway.refunds.create({
		transactionId,
		amount: refundAmount,
		reason: "Customer returned one item",
	});
	check(refund.approval === "pending_approval", `refund approval ${refund.approval}`);
	say(
		`The merchant asked for a partial refund of ${money(refundAmount, currency)} (${refund.refundNumber}); ` +
			`the gateway holds it: "${refund.message}"`,
	);

	const isHeld = (r: Refund) => r.refundId === refund.refundId && r.status === "refund_under_review";
	const held = await waitFor(refundIpns, isHeld, "the refund IPN (held)");
	say(`Refund IPN received and verified: ${held.status} (code ${held.statusCode}).`);

	sandbox.approveRefund(refund.refundId);
	say("The gateway's operator approved the refund (sandbox.approveRefund).");

	const done = await waitFor(
		refundIpns,
		(r) => r.refundId === refund.refundId && r.status === "refund_successful",
		"the refund IPN (approved)",
	);
	await sandbox.whenIdle();
	check(done.statusCode === STATUS_CODES.refund_successful, `refund status code ${done.statusCode}`);
	say(
		"Refund IPN received, verified and acknowledged: " +
			`${done.status} (code ${done.statusCode}), ${money(done.refundAmount, currency)}.`,
	);

	const queried = await gateway.refunds.retrieve(refund.refundId);
	check(queried.status === "refund_successful" && queried.refundAmount === refundAmount, "queried refund");
	say(`The merchant queried the refund: ${queried.status}, ${money(queried.refundAmount, currency)} of ${paidAmount}.`);
}

async function hostedCheckout(): Promise<void> {
	section("Checkout on the hosted payment page");
	const amount = 120;
	const session = await gateway.checkout.create({
		orderRef: `demo-${Date.now()}`,
		amount,
		currency: "EUR",
		paymentMethod: "checkout",
		orderDescription: "2 x Trail running shoes",
		...merchantUrls,
	});
	check(session.paymentLink.startsWith(`${sandboxServer.url}/pay/`), "payment link");
	const price = money(amount, "EUR");
	say(`The merchant created a checkout session for ${price}: "${session.message}" (${session.transactionId}).`);
	const waiting = await gateway.transactions.retrieve(session.transactionId);
	check(waiting.statusCode === STATUS_CODES.incomplete, `new session status ${waiting.status}`);
	say(`Until the buyer pays, the transaction is ${waiting.status} (code ${waiting.statusCode}).`);
	await buyer(
		session.paymentLink,
		"pay with the gateway guide's test card 4242 4242 4242 4242, expiry 12/30, CVC 123",
		{
			action: "pay",
			cardNumber: "4242424242424242",
			cardMonth: "12",
			cardYear: "30",
			cardSecurityCode: "123",
			cardName: "Ada Lovelace",
		},
		"/return",
	);
	say(
		inBrowser
			? "The buyer paid on the hosted payment page, in the browser."
			: "The buyer opened the payment page and paid with the gateway guide's test card 4242 4242 4242 4242.",
	);
	await afterPayment(session.transactionId, amount, "EUR", 20);
}

/** An S2S charge of `amount` with test card `cardNumber` (expiry 12/30, CVC 123, as in the gateway's guide). */
const s2sCharge = (orderRef: string, amount: number, cardNumber: string): CardChargeParams => ({
	orderRef,
	amount,
	currency: "EUR",
	orderDescription: "Rain jacket",
	...merchantUrls,
	cardNumber,
	cardMonth: "12",
	cardYear: "30",
	cardSecurityCode: "123",
	billingFirstName: "Ada",
	billingLastName: "Lovelace",
	billingEmail: "ada@example.com",
	billingStreet1: "12 St James's Square",
	billingCity: "London",
	billingCountry: "GB",
	billingPostalCode: "SW1Y 4JH",
	billingPhoneNumber: "+442071234567",
	customerIp: "203.0.113.10",
	browserDetails: {
		acceptHeader: "text/html",
		screenWidth: "1920",
		screenHeight: "1080",
		screenColorDepth: "24",
		windowWidth: "1280",
		windowHeight: "800",
		language: "en-GB",
		javaEnabled: "false",
		userAgent: "Mozilla/5.0 (demo)",
		timeZone: "0",
		timeZoneName: "Europe/London",
	},
});

async function serverToServer(): Promise<void> {
	section("Server-to-server card payment with 3-D Secure");
	const amount = 75.5;
	const charge = await gateway.card.charge(s2sCharge(`demo-s2s-${Date.now()}`, amount, "4000000000000036"));
	check(charge.outcome === "redirect", `charge outcome ${charge.outcome}`);
	if (charge.outcome !== "redirect") return;
	const price = money(amount, "EUR");
	say(`The merchant's server charged test card 4000 0000 0000 0036 for ${price}, 3-D Secure: "${charge.message}"`);
	const waiting = await gateway.transactions.retrieve(charge.transactionId);
	check(waiting.statusCode === STATUS_CODES.pending, `3DS wait status ${waiting.status}`);
	say(`While the buyer authenticates, the transaction is ${waiting.status} (code ${waiting.statusCode}).`);
	const doing = "enter the gateway guide's 3-D Secure password 123456";
	await buyer(charge.redirectUrl, doing, { password: "123456" }, "/return");
	say("The merchant redirected the buyer to the 3DS page; the buyer entered the password and authenticated.");
	await afterPayment(charge.transactionId, amount, "EUR", 25.5);
}

async function declinedCard(): Promise<void> {
	section("A declined card");
	const params = s2sCharge(`demo-declined-${Date.now()}`, 12, "4000000000001018");
	const declined = await gateway.card.charge(params).catch((error: unknown) => error);
	if (!(declined instanceof ProcessingError)) throw new Error("check failed: no ProcessingError");
	const transactionId = declined.transactionId ?? "";
	check(transactionId, "the ProcessingError carries the transaction id");
	say(`The gateway guide's declined card 4000 0000 0000 1018 was refused: ProcessingError (HTTP ${declined.status}).`);
	const ipn = await waitFor(
		transactionIpns,
		(t) => t.transactionId === transactionId,
		"the IPN of the declined charge",
	);
	check(ipn.status === "failed" && statusFromCode(ipn.statusCode) === "failed", `declined IPN status ${ipn.status}`);
	const named = statusFromCode(ipn.statusCode);
	say(`Its IPN arrived, verified: ${ipn.status} (statusFromCode(${ipn.statusCode}) is "${named}").`);
}

// ---- run ------------------------------------------------------------------------

console.log("Merchant Gateway demo: a complete merchant integration against the local sandbox.\n");
say(`Started the gateway sandbox at ${sandboxServer.url} (merchant "${MERCHANT_ID}", refunds held for approval).`);
say(`Started the merchant's server at ${shop}, with an IPN route built with createNotificationHandler.`);

let exitCode = 0;
try {
	await hostedCheckout();
	await serverToServer();
	await declinedCard();
	const seconds = ((performance.now() - started) / 1000).toFixed(1);
	console.log(`\nAll ${stepNumber} steps checked out in ${seconds} s.`);
} catch (error) {
	exitCode = 1;
	console.error(
		`\nThe demo stopped at step ${stepNumber + 1}: ${error instanceof Error ? error.message : String(error)}`,
	);
} finally {
	await sandboxServer.close();
	await new Promise<void>((resolve) => merchantServer.close(() => resolve()));
}
process.exitCode = exitCode;
