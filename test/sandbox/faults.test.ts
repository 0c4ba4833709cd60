import { HttpResponse } from "msw";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import {
	ConfigurationError,
	ConnectionError,
	type GatewayClientOptions,
	OutcomeUnknownError,
} from "../../src/index.js";
import { createSandbox, type Sandbox } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { FACE_NAMES, faceClient, MERCHANT_ID, merchant, type SandboxFace, startFace } from "./helpers.js";

// Fault injection, through the public `merchant-gateway/testing` (and `/testing/msw`) entries (see
// `startFace`), on both faces: real loopback HTTP (the sandbox server) and MSW in-process.

const FROZEN_AT = "2030-01-01T00:00:00Z";
const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
const accounts = () => [merchant(), merchant({ merchantId: "merchant-21", signVersion: "2.1" })];

describe.each(FACE_NAMES)("fault injection over %s", (faceName) => {
	let face: SandboxFace;
	let n = 0;
	const orderRef = () => `${faceName}-fault-${++n}`;
	const client = (overrides: Partial<GatewayClientOptions> = {}) =>
		faceClient(face, { retryBaseDelayMs: 1, ...overrides });
	const checkoutParams = (ref = orderRef()) => ({
		orderRef: ref,
		amount: 12.5,
		currency: "EUR",
		paymentMethod: "checkout" as const,
		orderDescription: "Fault test",
		callbackUrl: "https://shop.example/callback",
		notificationUrl: "https://shop.example/ipn",
		cancelUrl: "https://shop.example/cancel",
		errorUrl: "https://shop.example/error",
	});
	const sessionByRef = (ref: string) => face.sandbox.transactions().find((t) => t.ref === ref);
	/** A raw POST of a JSON body (no client): what the fault does shows without a client's retries. */
	const post = (path: string, body: unknown, init: RequestInit = {}) =>
		fetch(`${face.baseUrl}${path}`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(body),
			...init,
		});

	beforeAll(async () => {
		face = await startFace(faceName, { gatewayKeys, merchants: accounts(), now: FROZEN_AT });
	});
	afterAll(() => face.close());
	afterEach(() => {
		face.sandbox.faults.clear();
		face.sandbox.received.clear();
	});

	test("every request is recorded: path, raw body, headers, fields as sent, verification and status", async () => {
		const ref = orderRef();
		const session = await client().checkout.create(checkoutParams(ref));
		await client({ signVersion: "2.1", merchantId: "merchant-21" }).checkout.create(checkoutParams());
		const [first, second] = face.sandbox.received.all("/v2/checkout/");
		expect(first).toMatchObject({ method: "POST", path: "/v2/checkout", signVersion: "2.0", verified: true });
		expect(first?.status).toBe(200);
		expect(first?.fields).toMatchObject({ merchantId: MERCHANT_ID, orderRef: ref, amount: 12.5 });
		expect(first?.fields).not.toHaveProperty("signature");
		expect(JSON.parse(first?.raw ?? "")).toMatchObject({ orderRef: ref, signature: expect.any(String) });
		expect(first?.headers.get("user-agent")).toMatch(/^merchant-gateway\//);
		expect(first?.receivedAt.toISOString()).toBe("2030-01-01T00:00:00.000Z");
		expect(second).toMatchObject({ signVersion: "2.1", verified: true, fields: { merchantId: "merchant-21" } });
		expect(JSON.parse(second?.raw ?? "")).toHaveProperty("payload");
		await client().transactions.retrieve(session.transactionId);
		expect(face.sandbox.received.count()).toBe(3);
		expect(face.sandbox.received.last()?.fields).toEqual({ transactionId: session.transactionId });
	});

	test("a request signed with another key is recorded as unverified", async () => {
		const other = client({ privateKey: keys.gatewayPrivate });
		await expect(other.checkout.create(checkoutParams())).rejects.toThrow();
		expect(face.sandbox.received.last("/v2/checkout")).toMatchObject({ verified: false, status: 500 });
	});

	test("fixed responses fail the next requests to a path, in order; then the sandbox responds again", async () => {
		const { transactionId } = await client().checkout.create(checkoutParams());
		const busy = { status: 503, json: { status: "error", message: "Service unavailable" } };
		face.sandbox.faults.next(
			"/v2/checkout/query",
			{ response: busy },
			{ response: HttpResponse.json({}, { status: 502 }) },
		);
		expect(face.sandbox.faults.pending("/v2/checkout/query")).toBe(2);
		const retries: string[] = [];
		const gateway = client({ hooks: { onRetry: (event) => void retries.push(event.reason) } });
		await expect(gateway.transactions.retrieve(transactionId)).resolves.toMatchObject({ transactionId });
		expect(retries).toEqual(["status 503", "status 502"]);
		expect(face.sandbox.received.all("/v2/checkout/query").map((r) => r.status)).toEqual([503, 502, 200]);
		expect(face.sandbox.faults.pending()).toBe(0);
	});

	test("a responder builds a signed response with a twist from the sandbox's own response", async () => {
		const { transactionId } = await client().checkout.create(checkoutParams());
		face.sandbox.faults.next("/v2/checkout/query", async (request, gateway) => {
			expect(request.fields).toEqual({ transactionId });
			const own = await gateway.sandboxResponse();
			const { signature: _signature, ...fields } = JSON.parse(own.body) as Record<string, unknown>;
			return { json: gateway.sealFlat({ ...fields, message: "twisted" }) };
		});
		const transaction = await client().transactions.retrieve(transactionId);
		expect(transaction).toMatchObject({ transactionId, message: "twisted", status: "incomplete" });
	});

	test("a wrapped response sealed in the account's version (2.1)", async () => {
		const gateway = client({ signVersion: "2.1", merchantId: "merchant-21" });
		face.sandbox.faults.next("/v2/checkout", (_request, tools) => {
			expect(tools.signVersion).toBe("2.1");
			const link = `${face.baseUrl}/pay/01k0svjxa7rxj0wwz0cqb85r6a?token=x`;
			const fields = { status: "created", transactionId: "01k0svjxa7rxj0wwz0cqb85r6a", paymentLink: link };
			return { json: tools.sealFlat({ ...fields, message: "made up" }) };
		});
		const session = await gateway.checkout.create(checkoutParams());
		expect(session.transactionId).toBe("01k0svjxa7rxj0wwz0cqb85r6a");
		expect(face.sandbox.transactions()).not.toContainEqual(
			expect.objectContaining({ transactionId: session.transactionId }),
		);
	});

	test("drop after processing: the checkout exists, the client's outcome is unknown", async () => {
		const ref = orderRef();
		face.sandbox.faults.next("/v2/checkout", { drop: "after-processing" });
		const error = await client()
			.checkout.create(checkoutParams(ref))
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect(sessionByRef(ref)?.status).toBe("incomplete");
		expect(face.sandbox.received.last("/v2/checkout")).toMatchObject({ status: "dropped", verified: true });
		expect(face.sandbox.received.count("/v2/checkout")).toBe(1);
	});

	test("drop after reading: recorded, not processed; a create is not sent again", async () => {
		const ref = orderRef();
		face.sandbox.faults.next("/v2/checkout", { drop: "after-reading" });
		await expect(client().checkout.create(checkoutParams(ref))).rejects.toBeInstanceOf(OutcomeUnknownError);
		expect(sessionByRef(ref)).toBeUndefined();
		const [received] = face.sandbox.received.all("/v2/checkout");
		expect(received?.fields).toMatchObject({ orderRef: ref });
		expect(received?.status).toBe("dropped");
		expect(face.sandbox.received.count("/v2/checkout")).toBe(1);
	});

	test("drop before reading: nothing read, nothing processed; a query is retried", async () => {
		const { transactionId } = await client().checkout.create(checkoutParams());
		face.sandbox.faults.next("/v2/checkout/query", { drop: "before-reading" }, { drop: "before-reading" });
		await expect(client().transactions.retrieve(transactionId)).resolves.toMatchObject({ transactionId });
		const records = face.sandbox.received.all("/v2/checkout/query");
		expect(records.map((r) => [r.status, r.raw === ""])).toEqual([
			["dropped", true],
			["dropped", true],
			[200, false],
		]);
	});

	test("a responder's Response.error() drops the connection; out of retries a query is a ConnectionError", async () => {
		const { transactionId } = await client().checkout.create(checkoutParams());
		const reset = () => HttpResponse.error();
		face.sandbox.faults.next("/v2/checkout/query", reset, reset);
		const error = await client({ maxRetries: 1 })
			.transactions.retrieve(transactionId)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ConnectionError);
		expect(face.sandbox.received.count("/v2/checkout/query")).toBe(2);
	});

	test("mid-response: the status and headers arrive, the body breaks off", async () => {
		face.sandbox.faults.next("/v2/refund/query", { drop: "mid-response" });
		const response = await post("/v2/refund/query", { refundId: "01k0svjxa7rxj0wwz0cqb85r6a" });
		expect(response.status).toBe(404);
		await expect(response.text()).rejects.toThrow();
		expect(face.sandbox.received.last()?.status).toBe(404);
	});

	test("delayMs holds a request on the sandbox clock: it responds when a test moves the clock", async () => {
		face.sandbox.faults.next("/v2/refund/query", { delayMs: 60_000 });
		let settled = false;
		const held = post("/v2/refund/query", { refundId: "01k0svjxa7rxj0wwz0cqb85r6a" }).finally(() => {
			settled = true;
		});
		await vi.waitFor(() => expect(face.sandbox.faults.held("/v2/refund/query")).toBe(1));
		face.sandbox.clock.advance(59_999);
		// Another request goes through meanwhile: the held one is still waiting after it.
		expect((await post("/v2/nothing", {})).status).toBe(404);
		expect(settled).toBe(false);
		expect(face.sandbox.received.last("/v2/refund/query")?.status).toBeUndefined();
		face.sandbox.clock.advance(1);
		expect((await held).status).toBe(404);
	});

	test("until holds a request until the test's promise settles, then the fault's response goes out", async () => {
		let open = () => {};
		const gate = new Promise<void>((resolve) => {
			open = resolve;
		});
		face.sandbox.faults.next("/v2/refund", { until: gate, response: { status: 429, json: { message: "slow down" } } });
		let settled = false;
		const held = post("/v2/refund", {}).finally(() => {
			settled = true;
		});
		await vi.waitFor(() => expect(face.sandbox.faults.held("/v2/refund")).toBe(1));
		expect((await post("/v2/nothing", {})).status).toBe(404);
		expect(settled).toBe(false);
		open();
		const response = await held;
		expect(response.status).toBe(429);
		expect(await response.json()).toEqual({ message: "slow down" });
	});

	test("hang: the request is let go when the client gives up", async () => {
		face.sandbox.faults.next("/v2/checkout/query", { hang: true });
		const controller = new AbortController();
		const held = post("/v2/checkout/query", {}, { signal: controller.signal });
		await vi.waitFor(() => expect(face.sandbox.faults.held()).toBe(1));
		controller.abort();
		await expect(held).rejects.toThrow();
		await vi.waitFor(() => expect(face.sandbox.received.last()?.status).toBe("dropped"));
		expect(face.sandbox.faults.held()).toBe(0);
	});

	test("clear() forgets queued faults and lets held requests go", async () => {
		face.sandbox.faults.next("/v2/refund", { hang: true });
		face.sandbox.faults.next("/v2/card/api", { response: { status: 500 } });
		const held = post("/v2/refund", {}).catch((e: unknown) => e);
		await vi.waitFor(() => expect(face.sandbox.faults.held("/v2/refund")).toBe(1));
		face.sandbox.faults.clear();
		expect(await held).toBeInstanceOf(TypeError);
		expect(face.sandbox.faults.pending()).toBe(0);
		expect((await post("/v2/card/api", {})).status).not.toBe(500);
	});
});

describe("faults are checked when queued", () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await createSandbox({ gatewayKeys, merchants: accounts() });
	});
	afterAll(() => sandbox.close());

	test("a bad fault is a ConfigurationError naming the field and the rule", () => {
		const next = (fault: unknown) => () => sandbox.faults.next("/v2/checkout", fault as never);
		expect(next({ delayMs: -1 })).toThrow(ConfigurationError);
		expect(next({ delayMs: -1 })).toThrow("faults[0].delayMs: must be a finite number of milliseconds, 0 or more");
		expect(next({ drop: "sometimes" })).toThrow(
			"faults[0].drop: must be one of before-reading, after-reading, after-processing, mid-response",
		);
		expect(next({ until: 5 })).toThrow("faults[0].until: must be a promise");
		expect(next({ response: 5 })).toThrow("faults[0].response: must be an object, a Response or a function");
		expect(() => sandbox.faults.next("v2/checkout", {})).toThrow("path: must be a path starting with /");
		expect(sandbox.faults.pending()).toBe(0);
	});

	test("sandbox.handle() names a dropped connection before-response, a body cut short mid-body", async () => {
		sandbox.faults.next("/v2/refund/query", { drop: "after-reading" }, { drop: "mid-response" });
		const post = () =>
			sandbox.handle(new Request(`${sandbox.baseUrl}/v2/refund/query`, { method: "POST", body: "{}" }));
		expect(await post()).toMatchObject({ status: 0, body: "", drop: "before-response" });
		expect(await post()).toMatchObject({ status: 415, drop: "mid-body" });
	});

	test("the record keeps the last 100 requests", async () => {
		const own = await createSandbox({ gatewayKeys, merchants: accounts() });
		for (let i = 1; i <= 105; i++) await own.fetch(new Request(`${own.baseUrl}/?n=${i}`));
		expect(own.received.count()).toBe(100);
		expect(own.received.all()[0]?.url).toBe(`${own.baseUrl}/?n=6`);
		own.received.clear();
		expect(own.received.all()).toEqual([]);
		own.close();
	});

	test("closing the sandbox lets a held request go", async () => {
		const own = await createSandbox({ gatewayKeys, merchants: accounts() });
		own.faults.next("/v2/refund", { hang: true });
		const held = own.fetch(new Request(`${own.baseUrl}/v2/refund`, { method: "POST", body: "{}" }));
		await vi.waitFor(() => expect(own.faults.held()).toBe(1));
		own.close();
		expect((await held).type).toBe("error");
	});
});
