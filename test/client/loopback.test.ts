import { createServer } from "node:net";
import { describe, expect, test } from "vitest";
import {
	ConnectionError,
	GatewayRefusalError,
	OutcomeUnknownError,
	ProcessingError,
	TimeoutError,
} from "../../src/index.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams, makeClient } from "./helpers.js";

const gateway = useGateway();
const client = gateway.client;
const paths = () => gateway.received().map((request) => request.path);
const failWith500 = () => Response.json({ status: "error", message: "down" }, { status: 500 });

describe("over real loopback HTTP, against the sandbox", () => {
	test.each(["2.0", "2.1"] as const)("all five endpoints succeed (%s)", async (signVersion) => {
		const sdk = client({ signVersion });
		await expect(sdk.checkout.create(checkoutParams())).resolves.toMatchObject({ paymentLink: expect.any(String) });
		const { transactionId } = await sdk.card.charge(cardParams());
		await expect(sdk.transactions.retrieve(transactionId)).resolves.toMatchObject({ status: "successful" });
		const created = await sdk.refunds.create({ transactionId, amount: 1 });
		expect(created).toMatchObject({ approval: "processed" });
		await expect(sdk.refunds.retrieve(created.refundId)).resolves.toMatchObject({ status: "refund_successful" });
		expect(paths()).toEqual(["/v2/checkout", "/v2/card/api", "/v2/checkout/query", "/v2/refund", "/v2/refund/query"]);
		expect(gateway.received()[0]?.headers.get("user-agent")).toMatch(/^merchant-gateway\/\S+ node\/\S+$/);
	});

	test("a create that times out -> OutcomeUnknownError, sent once", async () => {
		gateway.next("/v2/checkout", { hang: true });
		const error = await client({ timeoutMs: 100 })
			.checkout.create(checkoutParams({ orderRef: "ORD-T" }))
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as OutcomeUnknownError).orderRef).toBe("ORD-T");
		expect((error as Error).cause).toBeInstanceOf(TimeoutError);
		expect(paths()).toEqual(["/v2/checkout"]);
	});

	test("a query that times out is retried, then TimeoutError", async () => {
		const transactionId = await gateway.chargedTransaction();
		gateway.reset();
		gateway.next("/v2/checkout/query", { hang: true }, { hang: true }, { hang: true });
		const error = await client({ timeoutMs: 100 })
			.transactions.retrieve(transactionId)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TimeoutError);
		expect(paths()).toEqual(["/v2/checkout/query", "/v2/checkout/query", "/v2/checkout/query"]);
	});

	test("a reset after sending: a create -> OutcomeUnknownError (sent once); a query is retried", async () => {
		const transactionId = await gateway.chargedTransaction();
		gateway.reset();
		gateway.next("/v2/card/api", { drop: "after-reading" }, { drop: "after-reading" });
		await expect(client().card.charge(cardParams())).rejects.toBeInstanceOf(OutcomeUnknownError);
		expect(paths()).toEqual(["/v2/card/api"]);
		gateway.next("/v2/checkout/query", { drop: "after-reading" });
		await expect(client().transactions.retrieve(transactionId)).resolves.toMatchObject({ transactionId });
		expect(paths().slice(1)).toEqual(["/v2/checkout/query", "/v2/checkout/query"]);
	});

	test("sandbox processed the create, then the connection broke: OutcomeUnknownError, and it was made", async () => {
		gateway.next("/v2/card/api", { drop: "after-processing" });
		const error = await client()
			.card.charge(cardParams({ orderRef: "ORD-PROCESSED" }))
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as OutcomeUnknownError).orderRef).toBe("ORD-PROCESSED");
		const made = gateway.sandbox.transactions().filter((transaction) => transaction.ref === "ORD-PROCESSED");
		expect(made.map((transaction) => transaction.status)).toEqual(["successful"]);
		expect(paths()).toEqual(["/v2/card/api"]);
	});

	test("5xx then success: queries retried, creates not", async () => {
		const transactionId = await gateway.chargedTransaction();
		gateway.reset();
		gateway.next("/v2/checkout/query", failWith500, failWith500);
		await expect(client().transactions.retrieve(transactionId)).resolves.toMatchObject({ status: "successful" });
		expect(paths()).toHaveLength(3);
		gateway.next("/v2/refund", failWith500);
		await expect(client().refunds.create({ transactionId, amount: 1 })).rejects.toBeInstanceOf(ProcessingError);
		expect(paths()).toHaveLength(4);
	});

	// Fetch sends a request again by itself when it gets the response 421 Misdirected Request and its body can be
	// replayed (undici follows the Fetch standard there): a create's body is a one-shot stream, so it is not.
	test.each([
		["/v2/checkout", () => client().checkout.create(checkoutParams())],
		["/v2/card/api", () => client().card.charge(cardParams())],
		["/v2/refund", () => client().refunds.create({ transactionId: "01JD5Z8Q4V7M1X2C3B4N5P6R7S", amount: 1 })],
	] as const)("%s responded 421 Misdirected Request: sent once, never again by fetch", async (path, call) => {
		const misdirected = () => Response.json({ status: "error", message: "Misdirected" }, { status: 421 });
		gateway.next(path, misdirected, misdirected);
		const error = await call().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(GatewayRefusalError);
		expect((error as GatewayRefusalError).status).toBe(421);
		expect(paths()).toEqual([path]);
	});

	test("a create's body goes out with its Content-Length, as one message", async () => {
		await client().checkout.create(checkoutParams({ orderDescription: "Café crème ☕" }));
		const [received] = gateway.received();
		expect(received?.headers.get("transfer-encoding")).toBeNull();
		expect(received?.headers.get("content-length")).toBe(String(Buffer.byteLength(received?.raw ?? "")));
	});

	test("a refused connection never reached the gateway: a create is a ConnectionError, not unknown", async () => {
		const port = await new Promise<number>((resolve) => {
			const probe = createServer().listen(0, "127.0.0.1", () => {
				const { port } = probe.address() as { port: number };
				probe.close(() => resolve(port));
			});
		});
		const error = await makeClient({ baseUrl: `http://127.0.0.1:${port}`, allowLoopbackHttp: true })
			.checkout.create(checkoutParams())
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ConnectionError);
		expect((error as Error).message).toMatch(/ECONNREFUSED/);
	});
});

describe("a redirect from the gateway", () => {
	// Asked as redirect "manual" (workerd refuses "error") and refused by the client itself.
	test("is not followed: a query fails with ConnectionError naming it; a create's outcome is unknown", async () => {
		const transactionId = await gateway.chargedTransaction();
		gateway.reset();
		const redirect = () =>
			new Response(null, { status: 302, headers: { location: `${gateway.baseUrl}/v2/elsewhere` } });
		const inits: RequestInit[] = [];
		const fetch = (input: Request | URL | string, init?: RequestInit) => {
			if (init) inits.push(init);
			return globalThis.fetch(input, init);
		};
		gateway.next("/v2/checkout/query", redirect);
		const queried = await client({ maxRetries: 0, fetch })
			.transactions.retrieve(transactionId)
			.catch((e: unknown) => e);
		expect(queried).toBeInstanceOf(ConnectionError);
		expect((queried as Error).message).toContain("redirect (HTTP 302)");
		gateway.next("/v2/checkout", redirect);
		const created = await client({ fetch })
			.checkout.create(checkoutParams())
			.catch((e: unknown) => e);
		expect(created).toBeInstanceOf(OutcomeUnknownError);
		expect((created as Error).cause).toBeInstanceOf(ConnectionError);
		expect(paths()).toEqual(["/v2/checkout/query", "/v2/checkout"]);
		expect(inits.map((init) => init.redirect)).toEqual(["manual", "manual"]);
	});
});
