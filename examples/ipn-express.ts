// An IPN receiver in Express. express.json() in front of it is fine: 2.0
// signatures cover the canonical form of the parsed fields and 2.1 signatures
// cover the payload string, so a parsed body verifies like the raw one.
//   GATEWAY_PUBLIC_KEY="$(cat gateway-public.pem)" PORT=3000 npm run example examples/ipn-express.ts
// Without GATEWAY_PUBLIC_KEY it runs a self-test with a throwaway key pair.

import type { AddressInfo } from "node:net";
import express from "express";
import { createNotificationHandler, toNodeListener } from "merchant-gateway";
import { generateKeyPair, sealMessage } from "merchant-gateway/signing";

const demo = process.env.GATEWAY_PUBLIC_KEY ? undefined : await generateKeyPair();

const app = express();
app.use(express.json());
app.post(
	"/ipn",
	toNodeListener(
		createNotificationHandler({
			gatewayPublicKey: process.env.GATEWAY_PUBLIC_KEY ?? demo?.publicKey ?? "",
			// Throwing here responds 500 with a non-100 code: the gateway delivers again later.
			async onTransaction(transaction) {
				console.log(`order ${transaction.ref}: ${transaction.status}`);
			},
			async onRefund(refund) {
				console.log(`refund ${refund.refundId}: ${refund.status}`);
			},
		}),
	),
);

const server = app.listen(demo ? 0 : Number(process.env.PORT ?? 3000), "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ipn`;
console.log(`IPN receiver on ${url}`);

if (demo) {
	// A 2.0 IPN this time: flat fields plus a signature.
	// The status and its code, from the gateway's catalogue (D8).
	const paid = { status: "successful", statusCode: 6 }; // STATUS_CODES.successful
	const ipnBody = sealMessage(
		{ transactionId: "01k0svjxa7rxj0wwz0cqb85r6a", ref: "ORD-1", currency: "EUR", amount: 10.5, ...paid },
		{ privateKey: demo.privateKey },
	);
	const response = await fetch(url, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(ipnBody),
	});
	console.log(`gateway got ${response.status} ${await response.text()}`);
	server.close();
}
