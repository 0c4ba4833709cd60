import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
	ConnectionError,
	GatewayRefusalError,
	OutcomeUnknownError,
	ProcessingError,
	TimeoutError,
} from "../../src/errors/index.js";
import { type HttpGatewayStub, startHttpGateway } from "../fixtures/gateway-http.js";
import { ids } from "../fixtures/gateway-messages.js";
import { cardParams, checkoutParams, makeClient } from "./helpers.js";

let stub: HttpGatewayStub;
beforeAll(async () => {
	stub = await startHttpGateway();
});
afterAll(() => stub.close());
beforeEach(() => {
	stub.reset();
});

const client = (overrides = {}) => makeClient({ baseUrl: stub.baseUrl, allowLoopbackHttp: true, ...overrides });

describe("over real loopback HTTP", () => {
	test.each(["2.0", "2.1"] as const)("all five endpoints succeed (%s)", async (version) => {
		const gateway = client({ signVersion: version });
		await expect(gateway.checkout.create(checkoutParams())).resolves.toMatchObject({ transactionId: ids.transaction });
		await expect(gateway.card.charge(cardParams())).resolves.toMatchObject({ outcome: "success" });
		await expect(gateway.transactions.retrieve(ids.transaction)).resolves.toMatchObject({ status: "successful" });
		await expect(gateway.refunds.create({ transactionId: ids.transaction, amount: 1 })).resolves.toMatchObject({
			approval: "processed",
		});
		await expect(gateway.refunds.retrieve(ids.refund)).resolves.toMatchObject({ status: "refund_successful" });
		expect(stub.hits).toEqual(["/v2/checkout", "/v2/card/api", "/v2/checkout/query", "/v2/refund", "/v2/refund/query"]);
		expect(stub.userAgents[0]).toMatch(/^merchant-gateway\/\S+ node\/\S+$/);
	});

	test("a create that times out -> OutcomeUnknownError, sent once", async () => {
		stub.next("/v2/checkout", "hang");
		const error = await client({ timeoutMs: 100 })
			.checkout.create(checkoutParams({ orderRef: "ORD-T" }))
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as OutcomeUnknownError).orderRef).toBe("ORD-T");
		expect((error as Error).cause).toBeInstanceOf(TimeoutError);
		expect(stub.hits).toEqual(["/v2/checkout"]);
	});

	test("a query that times out is retried, then TimeoutError", async () => {
		stub.next("/v2/refund/query", "hang", "hang", "hang");
		const error = await client({ timeoutMs: 100 })
			.refunds.retrieve(ids.refund)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TimeoutError);
		expect(stub.hits).toEqual(["/v2/refund/query", "/v2/refund/query", "/v2/refund/query"]);
	});

	test("a connection reset after the request was sent: create -> OutcomeUnknownError (once); query retried", async () => {
		stub.next("/v2/card/api", "destroy", "destroy");
		await expect(client().card.charge(cardParams())).rejects.toBeInstanceOf(OutcomeUnknownError);
		expect(stub.hits).toEqual(["/v2/card/api"]);
		stub.next("/v2/checkout/query", "destroy");
		await expect(client().transactions.retrieve(ids.transaction)).resolves.toMatchObject({
			transactionId: ids.transaction,
		});
		expect(stub.hits.slice(1)).toEqual(["/v2/checkout/query", "/v2/checkout/query"]);
	});

	test("5xx then success: queries retried, creates not", async () => {
		const fail = (_req: unknown, res: import("node:http").ServerResponse) =>
			res.writeHead(500, { "content-type": "application/json" }).end('{"status":"error","message":"down"}');
		stub.next("/v2/checkout/query", fail, fail);
		await expect(client().transactions.retrieve(ids.transaction)).resolves.toMatchObject({ status: "successful" });
		expect(stub.hits.length).toBe(3);
		stub.next("/v2/refund", fail);
		await expect(client().refunds.create({ transactionId: ids.transaction, amount: 1 })).rejects.toBeInstanceOf(
			ProcessingError,
		);
		expect(stub.hits.length).toBe(4);
	});

	// Fetch sends a request again by itself when it is answered 421 Misdirected Request and its body can be
	// replayed (undici follows the Fetch standard there): a create's body is a one-shot stream, so it is not.
	test.each([
		["/v2/checkout", () => client().checkout.create(checkoutParams())],
		["/v2/card/api", () => client().card.charge(cardParams())],
		["/v2/refund", () => client().refunds.create({ transactionId: ids.transaction, amount: 1 })],
	] as const)("%s answered 421 Misdirected Request: sent once, never again by fetch", async (path, call) => {
		const misdirected = (_req: unknown, res: import("node:http").ServerResponse) =>
			res.writeHead(421, { "content-type": "application/json" }).end('{"status":"error","message":"Misdirected"}');
		stub.next(path, misdirected, misdirected);
		const error = await call().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(GatewayRefusalError);
		expect((error as GatewayRefusalError).status).toBe(421);
		expect(stub.hits).toEqual([path]);
	});

	test("a create's body goes out with its Content-Length, as one message", async () => {
		await client().checkout.create(checkoutParams({ orderDescription: "Café crème ☕" }));
		const [received] = stub.received;
		expect(received?.headers["transfer-encoding"]).toBeUndefined();
		expect(received?.headers["content-length"]).toBe(String(Buffer.byteLength(received?.body ?? "")));
	});

	test("a refused connection never reached the gateway: a create fails with ConnectionError, not OutcomeUnknownError", async () => {
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
