// An IPN receiver in Hono. The handler is a Web `(request) => Response`, so it
// takes `c.req.raw` as is, on Bun, Deno, Cloudflare Workers or Node.
//   Bun / Deno / Workers: export default app (as below) and set GATEWAY_PUBLIC_KEY.
//   npm run example examples/ipn-hono.ts   runs a self-test through app.request() with a throwaway key pair.
import { Hono } from "hono";
import { createNotificationHandler, STATUS_CODES } from "merchant-gateway";
import { generateKeyPair, sealMessage } from "merchant-gateway/signing";

const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const demo = env.GATEWAY_PUBLIC_KEY ? undefined : await generateKeyPair();

const ipn = createNotificationHandler({
	gatewayPublicKey: env.GATEWAY_PUBLIC_KEY ?? demo?.publicKey ?? "",
	async onTransaction(transaction, { eventId }) {
		console.log(`${eventId}: ${transaction.status}`);
	},
	async onRefund(refund, { eventId }) {
		console.log(`${eventId}: ${refund.status}`);
	},
});

const app = new Hono();
// Do not call c.req.json() first: the handler reads the untouched body itself.
app.post("/ipn", (c) => ipn(c.req.raw));
export default app;

if (demo && import.meta.main) {
	// Statuses and codes come from the gateway's catalogue (D8).
	const paid = { status: "successful", statusCode: STATUS_CODES.successful };
	const ipnBody = sealMessage(
		{ transactionId: "01k0svjxa7rxj0wwz0cqb85r6a", ref: "ORD-1", currency: "EUR", amount: 10.5, ...paid },
		{ privateKey: demo.privateKey, signVersion: "2.1" },
	);
	const response = await app.request("/ipn", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(ipnBody),
	});
	console.log(`gateway got ${response.status} ${await response.text()}`);
}
