// What the sandbox benches send: the test keys, and distinct 2.1 checkout requests signed up front.
import { readFileSync } from "node:fs";
import { sealMessage } from "../dist/signing/index.js";

const keysDir = new URL("../test/vectors/keys/", import.meta.url);

/** A PEM of the test vectors' keys, such as `merchant-private`. */
export const pem = (name) => readFileSync(new URL(`${name}.pem`, keysDir), "utf8");

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
