// What the benches send: the test keys, a checkout's parameters, and for the sandbox benches distinct 2.1
// checkout requests signed up front and the load that sends them.
import { readFileSync } from "node:fs";
import { sealMessage } from "../dist/signing/index.js";

const keysDir = new URL("../test/vectors/keys/", import.meta.url);

/** A PEM of the test vectors' keys, such as `merchant-private`. */
export const pem = (name) => readFileSync(new URL(`${name}.pem`, keysDir), "utf8");

/** A checkout's parameters, as a merchant passes them to `checkout.create`. */
export const CHECKOUT_PARAMS = {
	orderRef: "ORD-2026-0001",
	amount: 10.5,
	currency: "EUR",
	paymentMethod: "checkout",
	callbackUrl: "https://shop.example/pay/callback",
	notificationUrl: "https://shop.example/pay/ipn",
	cancelUrl: "https://shop.example/pay/cancel",
	errorUrl: "https://shop.example/pay/error",
	orderDescription: "Two coffees",
};

/** The merchant the sandbox benches register and sign as. */
export const MERCHANT_ID = "bench-shop";

/** Distinct checkout requests (orderRef is unique per merchant), signed once up front, in the 2.1 form. */
export function checkoutBodies(count, prefix) {
	const privateKey = pem("merchant-private");
	return Array.from({ length: count }, (_, i) =>
		JSON.stringify(
			sealMessage(
				{
					merchantId: MERCHANT_ID,
					orderRef: `${prefix}-${i}`,
					amount: 49.99,
					currency: "EUR",
					paymentMethod: "checkout",
					orderDescription: "Benchmark order",
					callbackUrl: "https://shop.example/return",
					notificationUrl: "https://shop.example/ipn",
					cancelUrl: "https://shop.example/cancel",
					errorUrl: "https://shop.example/error",
					metadata: { cart: i },
				},
				{ privateKey, signVersion: "2.1" },
			),
		),
	);
}

/**
 * POSTs every body once to a sandbox's /v2/checkout over `connections` connections; throws when any response
 * is not 2xx. Returns the wall seconds from the first request to the last response (autocannon itself reports
 * on whole-second ticks) and the responses' count.
 */
export async function fireCheckouts(port, bodies, connections = 8) {
	const { default: autocannon } = await import("autocannon");
	let next = 0;
	const started = performance.now();
	let lastResponse = started;
	const tracker = autocannon({
		url: `http://127.0.0.1:${port}/v2/checkout`,
		connections,
		amount: bodies.length,
		requests: [
			{
				method: "POST",
				headers: { "content-type": "application/json" },
				setupRequest: (request) => ({ ...request, body: bodies[next++] }),
			},
		],
	});
	tracker.on("response", () => {
		lastResponse = performance.now();
	});
	const result = await tracker;
	if (result.non2xx > 0 || result.errors > 0)
		throw new Error(`${result.non2xx} non-2xx responses, ${result.errors} errors`);
	return { seconds: (lastResponse - started) / 1000, total: result.requests.total };
}
