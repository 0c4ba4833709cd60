import { beforeAll, describe, expect, test, vi } from "vitest";
import {
	CheckoutError,
	type ClientRetryEvent,
	ConnectionError,
	InvalidResponseError,
	OutcomeUnknownError,
	ProcessingError,
	RateLimitError,
	RequestValidationError,
	TimeoutError,
} from "../../src/index.js";
import { parseRetryAfter } from "../../src/transport/retry.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams } from "./helpers.js";

const sandbox = useGateway();
const makeClient = sandbox.client;
const fixture = sandbox;

const serverError = () => Response.json({ status: "error", message: "boom" }, { status: 503 });
const reset = { drop: "after-reading" } as const;
const hang = { hang: true } as const;

/** A transaction and a refund the sandbox really made: what queries ask for. */
const ids = { transaction: "", refund: "" };
beforeAll(async () => {
	ids.transaction = await sandbox.chargedTransaction();
	ids.refund = (await makeClient().refunds.create({ transactionId: ids.transaction, amount: 1 })).refundId;
});

describe("queries are retried on network errors, 408, 429 and 5xx", () => {
	test("two 503s then success: three requests, onRetry called twice", async () => {
		const retries: ClientRetryEvent[] = [];
		const gateway = makeClient({ hooks: { onRetry: (event) => retries.push(event) } });
		fixture.next("/v2/checkout/query", serverError, serverError);
		await expect(gateway.transactions.retrieve(ids.transaction)).resolves.toMatchObject({
			transactionId: ids.transaction,
		});
		expect(fixture.count("/v2/checkout/query")).toBe(3);
		expect(retries.map((r) => [r.attempt, r.reason])).toEqual([
			[2, "status 503"],
			[3, "status 503"],
		]);
	});

	test("5xx beyond maxRetries: maxRetries + 1 requests, then the error", async () => {
		fixture.next("/v2/refund/query", serverError, serverError, serverError, serverError);
		const error = await makeClient()
			.refunds.retrieve(ids.refund)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ProcessingError);
		expect((error as ProcessingError).status).toBe(503);
		expect(fixture.count("/v2/refund/query")).toBe(3);
	});

	test("maxRetries 0 sends once", async () => {
		fixture.next("/v2/refund/query", serverError);
		await expect(makeClient({ maxRetries: 0 }).refunds.retrieve(ids.refund)).rejects.toBeInstanceOf(ProcessingError);
		expect(fixture.count("/v2/refund/query")).toBe(1);
	});

	test("connection resets are retried, then ConnectionError", async () => {
		fixture.next("/v2/checkout/query", reset, reset, reset);
		const error = await makeClient()
			.transactions.retrieve(ids.transaction)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ConnectionError);
		expect((error as ConnectionError).path).toBe("/v2/checkout/query");
		expect(fixture.count("/v2/checkout/query")).toBe(3);
	});

	test("a reset then success recovers", async () => {
		fixture.next("/v2/checkout/query", reset);
		await expect(makeClient().transactions.retrieve(ids.transaction)).resolves.toMatchObject({ status: "successful" });
		expect(fixture.count("/v2/checkout/query")).toBe(2);
	});

	test("timeouts are retried, then TimeoutError", async () => {
		fixture.next("/v2/checkout/query", hang, hang, hang);
		const error = await makeClient({ timeoutMs: 50 })
			.transactions.retrieve(ids.transaction)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TimeoutError);
		expect(fixture.count("/v2/checkout/query")).toBe(3);
	});

	test("408 and 429 are retried", async () => {
		const retries: ClientRetryEvent[] = [];
		fixture.next(
			"/v2/checkout/query",
			() => Response.json({ status: "error" }, { status: 408 }),
			() => Response.json({ status: "error" }, { status: 429, headers: { "retry-after": "0" } }),
		);
		await makeClient({ hooks: { onRetry: (event) => retries.push(event) } }).transactions.retrieve(ids.transaction);
		expect(fixture.count("/v2/checkout/query")).toBe(3);
		expect(retries.map((r) => r.reason)).toEqual(["status 408", "status 429"]);
	});

	test("429 with a Retry-After longer than a minute is not waited for", async () => {
		fixture.next("/v2/checkout/query", () =>
			Response.json({ status: "error" }, { status: 429, headers: { "retry-after": "3600" } }),
		);
		const error = await makeClient()
			.transactions.retrieve(ids.transaction)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(RateLimitError);
		expect((error as RateLimitError).retryAfterSeconds).toBe(3600);
		expect(fixture.count("/v2/checkout/query")).toBe(1);
	});

	test("4xx other than 408/429 is not retried", async () => {
		fixture.next("/v2/checkout/query", () => Response.json({ status: "error", message: "bad" }, { status: 400 }));
		await expect(makeClient().transactions.retrieve(ids.transaction)).rejects.toBeInstanceOf(ProcessingError);
		expect(fixture.count("/v2/checkout/query")).toBe(1);
	});
});

describe("creates are never retried once the request may have been sent", () => {
	test.each([
		["/v2/checkout", () => makeClient().checkout.create(checkoutParams()), CheckoutError],
		["/v2/card/api", () => makeClient().card.charge(cardParams()), ProcessingError],
		["/v2/refund", () => makeClient().refunds.create({ transactionId: ids.transaction, amount: 5 }), ProcessingError],
	] as const)("%s: 5xx -> one request, no retry", async (path, call, kind) => {
		fixture.next(path, serverError, serverError);
		await expect(call()).rejects.toBeInstanceOf(kind);
		expect(fixture.count(path)).toBe(1);
	});

	test.each([
		[
			"/v2/checkout",
			() => makeClient().checkout.create(checkoutParams({ orderRef: "ORD-1" })),
			() => ({ orderRef: "ORD-1" }),
		],
		[
			"/v2/card/api",
			() => makeClient().card.charge(cardParams({ orderRef: "ORD-S2S-1" })),
			() => ({ orderRef: "ORD-S2S-1" }),
		],
		[
			"/v2/refund",
			() => makeClient().refunds.create({ transactionId: ids.transaction, amount: 5 }),
			() => ({ transactionId: ids.transaction }),
		],
	] as const)(
		"%s: connection reset -> OutcomeUnknownError with what to reconcile, one request",
		async (path, call, expected) => {
			fixture.next(path, reset, reset);
			const error = await call().catch((e: unknown) => e);
			expect(error).toBeInstanceOf(OutcomeUnknownError);
			expect(error).toMatchObject(expected());
			expect((error as OutcomeUnknownError).message).toMatch(/query the transaction/);
			expect(fixture.count(path)).toBe(1);
		},
	);

	test("a create that times out -> OutcomeUnknownError caused by a TimeoutError; timeoutMs per call", async () => {
		fixture.next("/v2/checkout", hang);
		const gateway = makeClient({ timeoutMs: 60_000 });
		const error = await gateway.checkout.create(checkoutParams(), { timeoutMs: 40 }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as Error).cause).toBeInstanceOf(TimeoutError);
		expect(fixture.count("/v2/checkout")).toBe(1);
	});
});

describe("AbortSignal", () => {
	test("already aborted: nothing is sent and the signal's reason is thrown", async () => {
		const controller = new AbortController();
		controller.abort(new Error("user gave up"));
		await expect(makeClient().checkout.create(checkoutParams(), { signal: controller.signal })).rejects.toThrow(
			"user gave up",
		);
		expect(fixture.received()).toEqual([]);
	});

	test("aborting a query in flight rejects with the signal's reason and stops retries", async () => {
		fixture.next("/v2/checkout/query", hang, hang);
		const controller = new AbortController();
		const pending = makeClient().transactions.retrieve(ids.transaction, { signal: controller.signal });
		await vi.waitFor(() => expect(fixture.count("/v2/checkout/query")).toBe(1));
		controller.abort(new Error("cancelled"));
		await expect(pending).rejects.toThrow("cancelled");
		expect(fixture.count("/v2/checkout/query")).toBe(1);
	});

	test("aborting a create after it was sent -> OutcomeUnknownError (honest: it may have been processed)", async () => {
		fixture.next("/v2/refund", hang);
		const controller = new AbortController();
		const pending = makeClient().refunds.create(
			{ transactionId: ids.transaction, amount: 5 },
			{ signal: controller.signal },
		);
		await vi.waitFor(() => expect(fixture.count("/v2/refund")).toBe(1));
		controller.abort(new Error("cancelled"));
		const error = await pending.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as OutcomeUnknownError).transactionId).toBe(ids.transaction);
	});
});

describe("custom fetch", () => {
	test("is used for every request", async () => {
		const seen: string[] = [];
		const gateway = makeClient({
			fetch: (input, init) => {
				seen.push(input instanceof Request ? input.url : String(input));
				return fetch(input, init);
			},
		});
		await gateway.transactions.retrieve(ids.transaction);
		expect(seen).toEqual([`${sandbox.baseUrl}/v2/checkout/query`]);
	});

	test("is called as fetch(url, init): a query's body is text, a create's a one-shot stream", async () => {
		const calls: Array<[unknown, RequestInit | undefined]> = [];
		const gateway = makeClient({
			fetch: (input, init) => {
				calls.push([input, init]);
				return fetch(input, init);
			},
		});
		await gateway.transactions.retrieve(ids.transaction);
		await gateway.checkout.create(checkoutParams());
		const [[queryUrl, query], [createUrl, create]] = calls as [[unknown, RequestInit], [unknown, RequestInit]];
		expect(queryUrl).toBe(`${sandbox.baseUrl}/v2/checkout/query`);
		expect(typeof query.body).toBe("string");
		expect(createUrl).toBe(`${sandbox.baseUrl}/v2/checkout`);
		expect(create.body).toBeInstanceOf(ReadableStream);
		// "manual": the client refuses a redirect itself (Cloudflare Workers reject "error"; loopback.test.ts).
		expect(create).toMatchObject({ method: "POST", redirect: "manual", duplex: "half" });
		const length = new Headers(create.headers).get("content-length");
		expect(Number(length)).toBe(Buffer.byteLength(fixture.received()[1]?.raw ?? ""));
	});

	test("a fetch that returns a non-JSON 500 on a query ends in InvalidResponseError after retries", async () => {
		let calls = 0;
		const gateway = makeClient({
			fetch: async () => {
				calls++;
				return new Response("oops", { status: 500 });
			},
		});
		await expect(gateway.transactions.retrieve(ids.transaction)).rejects.toBeInstanceOf(InvalidResponseError);
		expect(calls).toBe(3);
	});
});

describe("retry policy", () => {
	test("Retry-After in seconds and as an HTTP date", () => {
		expect(parseRetryAfter("3")).toBe(3000);
		expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
		expect(parseRetryAfter("soon")).toBeUndefined();
		expect(parseRetryAfter(null)).toBeUndefined();
	});
});

describe("per-request options are validated", () => {
	test("a bad timeoutMs or signal -> RequestValidationError, nothing sent", async () => {
		const error = await makeClient()
			.transactions.retrieve(ids.transaction, { timeoutMs: -1, signal: "stop" as never })
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(RequestValidationError);
		expect((error as RequestValidationError).issues.map((issue) => issue.field)).toEqual([
			"options.timeoutMs",
			"options.signal",
		]);
		expect(fixture.received()).toEqual([]);
	});
});
