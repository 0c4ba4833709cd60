// A Next.js App Router route handler: save as app/api/ipn/route.ts.
// The handler is a Web `(request: Request) => Promise<Response>`, so it is the POST export itself.
// `npm run example examples/nextjs-ipn-route.ts` runs a self-test with a throwaway key pair.
import { createNotificationHandler, STATUS_CODES } from "merchant-gateway";
import { generateKeyPair, sealMessage } from "merchant-gateway/signing";

// node:crypto verifies fastest; the SDK also runs on the edge runtime (node-forge backend).
export const runtime = "nodejs";

const demo = process.env.GATEWAY_PUBLIC_KEY ? undefined : await generateKeyPair();

export const POST = createNotificationHandler({
	gatewayPublicKey: process.env.GATEWAY_PUBLIC_KEY ?? demo?.publicKey ?? "",
	async onTransaction(transaction) {
		// e.g. await db.orders.update({ where: { ref: transaction.ref }, data: { status: transaction.status } })
		console.log(`order ${transaction.ref}: ${transaction.status}`);
	},
	async onRefund(refund) {
		console.log(`refund ${refund.refundId}: ${refund.status}`);
	},
	// On serverless, instances do not share memory: give the handler a shared store
	// (see NotificationStore in the README) so each event is processed once.
});

if (demo && import.meta.main) {
	// Statuses and codes come from the gateway's catalogue (D8).
	const paid = { status: "successful", statusCode: STATUS_CODES.successful };
	const ipnBody = sealMessage(
		{ transactionId: "01k0svjxa7rxj0wwz0cqb85r6a", ref: "ORD-1", currency: "EUR", amount: 10.5, ...paid },
		{ privateKey: demo.privateKey, signVersion: "2.1" },
	);
	const request = new Request("https://shop.example/api/ipn", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(ipnBody),
	});
	const response = await POST(request);
	console.log(`gateway got ${response.status} ${await response.text()}`);
}
