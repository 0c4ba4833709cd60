// An IPN receiver on plain node:http.
//   GATEWAY_PUBLIC_KEY="$(cat gateway-public.pem)" PORT=3000 npm run example examples/ipn-node-http.ts
// Without GATEWAY_PUBLIC_KEY it runs a self-test: a throwaway key pair plays the
// gateway, one signed IPN is posted to the server, and the response is printed.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createNotificationHandler, toNodeListener } from "merchant-gateway";
import { generateKeyPair, sealMessage } from "merchant-gateway/signing";

const demo = process.env.GATEWAY_PUBLIC_KEY ? undefined : await generateKeyPair();

const ipn = toNodeListener(
	createNotificationHandler({
		gatewayPublicKey: process.env.GATEWAY_PUBLIC_KEY ?? demo?.publicKey ?? "",
		// Runs once per event, after the signature is verified, with typed data.
		// Resolve once the change is stored: only then does the gateway get returnCode 100.
		async onTransaction(transaction, { eventId }) {
			// Statuses are the gateway's catalogue (STATUS_CODES, D8); one it adds later arrives as a plain string.
			switch (transaction.status) {
				case "successful":
					console.log(`${eventId}: order ${transaction.ref} is paid (${transaction.amount} ${transaction.currency})`);
					break;
				case "failed":
				case "canceled":
				case "expired":
					console.log(`${eventId}: order ${transaction.ref} was not paid: ${transaction.status}`);
					break;
				default:
					console.log(`${eventId}: order ${transaction.ref} is ${transaction.status} (code ${transaction.statusCode})`);
			}
		},
		async onRefund(refund, { eventId }) {
			console.log(`${eventId}: ${refund.refundAmount} ${refund.currency} for order ${refund.ref}`);
		},
		// Everything that did not end in "100": forged or malformed IPNs, your own errors.
		onError: (error, { status }) =>
			console.warn(`Responded ${status} to an IPN:`, error instanceof Error ? error.message : error),
	}),
);

const server = createServer((req, res) => {
	if (req.url === "/ipn") return ipn(req, res);
	res.writeHead(404).end();
});
// Node waits up to 300 s for a request by default; an IPN is a few KiB (the handler's bodyTimeoutMs is 10 s).
server.headersTimeout = 10_000;
server.requestTimeout = 15_000;
server.listen(demo ? 0 : Number(process.env.PORT ?? 3000), "127.0.0.1");
await new Promise((resolve) => server.once("listening", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ipn`;
console.log(`IPN receiver on ${url}`);

if (demo) {
	// The status and its code, from the gateway's catalogue (D8).
	const paid = { status: "successful", statusCode: 6 }; // STATUS_CODES.successful
	const ipnBody = sealMessage(
		{ transactionId: "01k0svjxa7rxj0wwz0cqb85r6a", ref: "ORD-1", currency: "EUR", amount: 10.5, ...paid },
		{ privateKey: demo.privateKey, signVersion: "2.1" },
	);
	const response = await fetch(url, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(ipnBody),
	});
	console.log(`gateway got ${response.status} ${await response.text()}`);
	server.close();
}
