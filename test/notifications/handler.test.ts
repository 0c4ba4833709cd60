import { describe, expect, it, vi } from "vitest";
import {
	ConfigurationError,
	createMemoryStore,
	createNotificationHandler,
	InvalidKeyError,
	InvalidNotificationError,
	LeaseExpiredError,
	type NotificationHandlerOptions,
	type NotificationStore,
	SignatureVerificationError,
} from "../../src/index.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import { keys, vector } from "../support/vectors.js";
import {
	deferred,
	gatewayPublicKey,
	ipnRequest,
	merchantPrivateKey,
	refundFields,
	signedBody,
	tick,
	transactionFields,
	transactionIpn,
} from "./fixtures.js";

function setup(overrides: Partial<NotificationHandlerOptions> = {}) {
	const onTransaction = vi.fn(async () => {});
	const onRefund = vi.fn(async () => {});
	const onError = vi.fn();
	const handler = createNotificationHandler({ gatewayPublicKey, onTransaction, onRefund, onError, ...overrides });
	return { handler, onTransaction, onRefund, onError };
}

async function statusAndBody(response: Response) {
	return { status: response.status, body: (await response.json()) as { returnCode: string; description?: string } };
}

/** A streamed body that counts what the handler pulled from it. */
function countingStream(chunk: Uint8Array, chunks: number) {
	const state = { pulled: 0, cancelled: false };
	const stream = new ReadableStream<Uint8Array>({
		pull(controller) {
			if (state.pulled >= chunk.length * chunks) return controller.close();
			state.pulled += chunk.length;
			controller.enqueue(chunk);
		},
		cancel() {
			state.cancelled = true;
		},
	});
	return { stream, state };
}

describe("createNotificationHandler with Request objects", () => {
	it("hands verified 2.0 and 2.1 transactions to onTransaction and responds 100", async () => {
		const { handler, onTransaction, onRefund } = setup();
		for (const name of ["transaction-ipn-2.0", "transaction-ipn-2.1"]) {
			const response = await handler(ipnRequest(vector(name).message as string));
			expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
			expect(await statusAndBody(response)).toEqual({
				status: 200,
				body: expect.objectContaining({ returnCode: "100" }),
			});
		}
		// Both vectors are the same event (same transactionId and status): the second is a duplicate.
		expect(onTransaction).toHaveBeenCalledTimes(1);
		expect(onTransaction).toHaveBeenCalledWith(vector("transaction-ipn-2.0").input, {
			eventId: "transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful",
			signVersion: "2.0",
			signal: expect.any(AbortSignal),
		});
		expect(onRefund).not.toHaveBeenCalled();
	});

	it("hands refunds to onRefund", async () => {
		const { handler, onTransaction, onRefund } = setup();
		expect((await handler(ipnRequest(signedBody(refundFields(), "2.1")))).status).toBe(200);
		expect(onRefund).toHaveBeenCalledWith(refundFields(), {
			eventId: "refund:01kafr0b2c4d6e8f0g2h4j6k8m:refund_successful",
			signVersion: "2.1",
			signal: expect.any(AbortSignal),
		});
		expect(onTransaction).not.toHaveBeenCalled();
	});

	it("responds only after the callback resolved", async () => {
		const gate = deferred();
		const { handler } = setup({ onTransaction: () => gate.promise });
		let settled = false;
		const pending = handler(ipnRequest(transactionIpn("T-slow"))).then((r) => {
			settled = true;
			return r;
		});
		for (let i = 0; i < 5; i++) await tick();
		expect(settled).toBe(false);
		gate.resolve();
		expect((await statusAndBody(await pending)).body.returnCode).toBe("100");
	});

	it("a throwing callback gets 500 and a non-100 code; the next delivery runs it again", async () => {
		let calls = 0;
		const { handler, onError } = setup({
			onTransaction: async () => {
				calls++;
				if (calls === 1) throw new Error("database down");
			},
		});
		const first = await statusAndBody(await handler(ipnRequest(transactionIpn("T-fail"))));
		expect(first.status).toBe(500);
		expect(first.body.returnCode).not.toBe("100");
		expect(first.body.description).not.toContain("database");
		expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: "database down" }), {
			status: 500,
			eventId: "transaction:t-fail:successful",
		});
		const second = await statusAndBody(await handler(ipnRequest(transactionIpn("T-fail"))));
		expect(second).toEqual({ status: 200, body: expect.objectContaining({ returnCode: "100" }) });
		expect(calls).toBe(2);
		expect((await statusAndBody(await handler(ipnRequest(transactionIpn("T-fail"))))).body.returnCode).toBe("100");
		expect(calls).toBe(2);
	});

	it("the same event delivered 50 times, 10 at once: one callback call, 50 acknowledgements", async () => {
		const onTransaction = vi.fn(async () => {
			for (let i = 0; i < 3; i++) await tick();
		});
		const { handler } = setup({ onTransaction });
		const body = transactionIpn("T-dup");
		const codes: string[] = [];
		for (let wave = 0; wave < 5; wave++) {
			const responses = await Promise.all(
				Array.from({ length: 10 }, () => handler(ipnRequest(body)).then(statusAndBody)),
			);
			for (const a of responses) {
				expect(a.status).toBe(200);
				codes.push(a.body.returnCode);
			}
		}
		expect(codes).toEqual(Array(50).fill("100"));
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});

	it("concurrent deliveries of a failing event all get a retryable response; a later one processes it", async () => {
		let fail = true;
		const onTransaction = vi.fn(async () => {
			await tick();
			if (fail) throw new Error("boom");
		});
		const { handler } = setup({ onTransaction });
		const body = transactionIpn("T-flaky", "2.1");
		const responses = await Promise.all(
			Array.from({ length: 10 }, () => handler(ipnRequest(body)).then(statusAndBody)),
		);
		expect(responses.map((a) => a.status)).toEqual(Array(10).fill(500));
		expect(onTransaction).toHaveBeenCalledTimes(1);
		fail = false;
		expect((await statusAndBody(await handler(ipnRequest(body)))).status).toBe(200);
		expect(onTransaction).toHaveBeenCalledTimes(2);
	});

	it("different events are processed independently", async () => {
		const { handler, onTransaction } = setup();
		await Promise.all(["A", "B", "C"].map((id) => handler(ipnRequest(transactionIpn(id)))));
		await handler(ipnRequest(transactionIpn("A", "2.0", "refunded")));
		expect(onTransaction).toHaveBeenCalledTimes(4);
	});

	it("refuses forged IPNs with 401 and never calls back", async () => {
		const { handler, onTransaction, onRefund, onError } = setup();
		const flat = JSON.parse(signedBody(transactionFields())) as Record<string, unknown>;
		const sealed21 = JSON.parse(signedBody(transactionFields(), "2.1")) as { payload: string; signature: string };
		const { signature, ...unsigned } = flat;
		const forged = [
			{ ...flat, amount: 1000 },
			{ ...flat, status: "failed" },
			unsigned,
			JSON.parse(signedBody(transactionFields(), "2.0", merchantPrivateKey)),
			{ payload: JSON.stringify(unsigned), signVersion: "2.1", signature },
			{ ...JSON.parse(sealed21.payload), signature: sealed21.signature },
			{ ...sealed21, payload: sealed21.payload.replace('"amount":10.5', '"amount":1050') },
		];
		for (const body of forged) {
			const a = await statusAndBody(await handler(ipnRequest(JSON.stringify(body))));
			expect(a.status).toBe(401);
			expect(a.body.returnCode).toBe("401");
		}
		expect(onTransaction).not.toHaveBeenCalled();
		expect(onRefund).not.toHaveBeenCalled();
		expect(onError).toHaveBeenCalledTimes(forged.length);
		expect(onError.mock.calls.every(([error]) => error instanceof SignatureVerificationError)).toBe(true);
	});

	it("refuses malformed bodies with 400", async () => {
		const { handler, onTransaction, onError } = setup();
		const valid = signedBody(transactionFields());
		const deep = `{"a":${"[".repeat(20000)}${"]".repeat(20000)}}`;
		for (const body of [
			valid.slice(0, -3),
			"",
			"[]",
			"null",
			deep,
			'{"payload":7,"signVersion":"2.1","signature":"AA=="}',
			signedBody({ ...transactionFields(), amount: "x" }),
		]) {
			const a = await statusAndBody(await handler(ipnRequest(body)));
			expect(a.status).toBe(400);
			expect(a.body.returnCode).toBe("400");
		}
		expect(await statusAndBody(await handler(ipnRequest(null)))).toMatchObject({ status: 400 });
		expect(onTransaction).not.toHaveBeenCalled();
		expect(onError.mock.calls.every(([error]) => error instanceof InvalidNotificationError)).toBe(true);
	});

	it("refuses non-string signature fields", async () => {
		const { handler, onTransaction } = setup();
		const flat = JSON.parse(signedBody(transactionFields())) as Record<string, unknown>;
		for (const signature of [1, null, [flat.signature], { s: flat.signature }]) {
			expect((await handler(ipnRequest(JSON.stringify({ ...flat, signature })))).status).toBe(401);
		}
		expect(onTransaction).not.toHaveBeenCalled();
	});

	it("does not let __proto__ or constructor keys pollute prototypes", async () => {
		const { handler, onTransaction } = setup();
		const fields = {
			...transactionFields(),
			metadata: JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'),
		};
		const body = signedBody(fields, "2.1").replace(
			"{",
			'{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},',
		);
		expect((await handler(ipnRequest(body))).status).toBe(200);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
		const [transaction] = onTransaction.mock.calls[0] as unknown as [Record<string, unknown>];
		expect(Object.getPrototypeOf(transaction)).toBe(Object.prototype);
		expect(Object.getPrototypeOf(transaction.metadata)).toBe(Object.prototype);
	});

	it("405 for other methods, with Allow: POST", async () => {
		const { handler } = setup();
		for (const method of ["GET", "PUT", "HEAD"]) {
			const response = await handler(new Request("http://127.0.0.1/ipn", { method }));
			expect(response.status).toBe(405);
			expect(response.headers.get("allow")).toBe("POST");
		}
	});

	it("415 unless the content type is application/json (no charset or UTF-8)", async () => {
		const { handler, onTransaction } = setup();
		const body = transactionIpn("T-ct");
		for (const type of [
			"text/plain",
			"application/x-www-form-urlencoded",
			"application/json; charset=iso-8859-1",
			"application/jsonp",
			"",
		]) {
			const response = await handler(ipnRequest(body, { headers: { "content-type": type } }));
			expect(response.status, type).toBe(415);
		}
		expect(onTransaction).not.toHaveBeenCalled();
		for (const type of ["Application/JSON", 'application/json; charset="UTF-8"', "application/json;charset=utf8"]) {
			expect((await handler(ipnRequest(body, { headers: { "content-type": type } }))).status, type).toBe(200);
		}
	});

	it("413 from Content-Length alone, without reading the body", async () => {
		const { handler } = setup({ maxBodyBytes: 1024 });
		const { stream, state } = countingStream(new Uint8Array(512).fill(32), 10);
		const request = ipnRequest(stream, {
			headers: { "content-type": "application/json", "content-length": "5120" },
			duplex: "half",
		} as RequestInit);
		expect((await handler(request)).status).toBe(413);
		expect(state.pulled).toBeLessThanOrEqual(512);
	});

	it("413 for a streamed body past the limit, which stops reading there", async () => {
		const { handler } = setup({ maxBodyBytes: 64 * 1024 });
		const chunk = new Uint8Array(4096).fill(32);
		const { stream, state } = countingStream(chunk, 10_000);
		const response = await handler(ipnRequest(stream, { duplex: "half" } as RequestInit));
		expect(response.status).toBe(413);
		expect(state.pulled).toBeLessThanOrEqual(64 * 1024 + 3 * chunk.length);
		expect(state.cancelled).toBe(true);
	});

	it("a body of exactly the limit is read", async () => {
		const body = transactionIpn("T-exact");
		const { handler } = setup({ maxBodyBytes: Buffer.byteLength(body) });
		expect((await handler(ipnRequest(body))).status).toBe(200);
	});

	it("500 when other code already read the request body", async () => {
		const { handler, onError } = setup();
		const request = ipnRequest(transactionIpn("T-used"));
		await request.text();
		expect((await handler(request)).status).toBe(500);
		expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(InvalidNotificationError);
	});
});

describe("createNotificationHandler and its store", () => {
	function spyStore(base: NotificationStore = createMemoryStore()) {
		return { claim: vi.fn(base.claim), confirm: vi.fn(base.confirm), release: vi.fn(base.release) };
	}

	it("claims with the lease, confirms after success, releases after failure", async () => {
		const store = spyStore();
		let fail = true;
		const { handler } = setup({
			store,
			leaseMs: 12_345,
			onTransaction: async () => {
				if (fail) throw new Error("x");
			},
		});
		await handler(ipnRequest(transactionIpn("T-store")));
		expect(store.claim).toHaveBeenCalledWith("transaction:t-store:successful", 12_345, expect.any(String));
		const [, , token] = store.claim.mock.calls[0] ?? [];
		expect(store.release).toHaveBeenCalledWith("transaction:t-store:successful", token);
		expect(store.confirm).not.toHaveBeenCalled();
		fail = false;
		await handler(ipnRequest(transactionIpn("T-store")));
		const [, , retryToken] = store.claim.mock.calls[1] ?? [];
		expect(retryToken).not.toBe(token);
		expect(store.confirm).toHaveBeenCalledWith("transaction:t-store:successful", retryToken);
	});

	it("an event claimed by another process gets 409 until its lease ends (crash recovery)", async () => {
		let now = 0;
		const shared = createMemoryStore({ now: () => now });
		const hung = deferred();
		// Process A takes the claim and never finishes (it crashed).
		const a = setup({ store: shared, leaseMs: 60_000, onTransaction: () => hung.promise });
		void a.handler(ipnRequest(transactionIpn("T-crash")));
		for (let i = 0; i < 5; i++) await tick();
		const b = setup({ store: shared, leaseMs: 60_000 });
		const busy = await statusAndBody(await b.handler(ipnRequest(transactionIpn("T-crash"))));
		expect(busy.status).toBe(409);
		expect(busy.body.returnCode).toBe("409");
		expect(b.onTransaction).not.toHaveBeenCalled();
		now += 60_001;
		expect((await b.handler(ipnRequest(transactionIpn("T-crash")))).status).toBe(200);
		expect(b.onTransaction).toHaveBeenCalledTimes(1);
	});

	it("a slow process whose lease ended in the store cannot release the claim of the one that took over", async () => {
		// The shared store's clock (another server's) has passed A's lease before A's own timer fired: A still
		// waits for its callback when it fails, and releases with its token, which no longer holds the claim.
		let storeNow = 0;
		const shared = createMemoryStore({ now: () => storeNow });
		const timerNotYetFired = () => () => {};
		const slow = deferred();
		const a = setup({ store: shared, leaseMs: 1000, startTimer: timerNotYetFired, onTransaction: () => slow.promise });
		const aResponse = a.handler(ipnRequest(transactionIpn("T-takeover")));
		for (let i = 0; i < 5; i++) await tick();
		storeNow += 1001;
		// B takes over the expired claim and is still working when A fails and releases.
		const working = deferred();
		const onTransaction = () => working.promise;
		const b = setup({ store: shared, leaseMs: 60_000, startTimer: timerNotYetFired, onTransaction });
		const bResponse = b.handler(ipnRequest(transactionIpn("T-takeover")));
		for (let i = 0; i < 5; i++) await tick();
		slow.reject(new Error("A failed late"));
		expect((await aResponse).status).toBe(500);
		// B's claim survived A's release: a third process is told the event is in progress, not handed it.
		const c = setup({ store: shared, leaseMs: 60_000 });
		expect((await c.handler(ipnRequest(transactionIpn("T-takeover")))).status).toBe(409);
		expect(c.onTransaction).not.toHaveBeenCalled();
		working.resolve();
		expect((await bResponse).status).toBe(200);
		expect((await c.handler(ipnRequest(transactionIpn("T-takeover")))).status).toBe(200);
		expect(c.onTransaction).not.toHaveBeenCalled();
	});

	it("a callback outliving its lease: 503 at the lease's end; its late success is a LeaseExpiredError", async () => {
		const clock = new ControllableClock(Date.UTC(2030, 0, 1));
		const shared = createMemoryStore({ now: () => clock.nowMs() });
		const startTimer = (onExpiry: () => void, delayMs: number) => clock.schedule(clock.nowMs() + delayMs, onExpiry);
		const slow = deferred();
		const a = setup({ store: shared, leaseMs: 1000, startTimer, onTransaction: () => slow.promise });
		const aResponse = a.handler(ipnRequest(transactionIpn("T-late")));
		for (let i = 0; i < 5; i++) await tick();
		clock.advance(1000);
		expect((await aResponse).status).toBe(503);
		const b = setup({ store: shared, leaseMs: 1000, startTimer });
		expect((await b.handler(ipnRequest(transactionIpn("T-late")))).status).toBe(200);
		slow.resolve();
		for (let i = 0; i < 5; i++) await tick();
		const late = a.onError.mock.calls.filter(([error]) => error instanceof LeaseExpiredError);
		expect(late).toHaveLength(1);
		const [error, info] = late[0] ?? [];
		const message = expect.stringContaining("1000 ms lease");
		expect(error).toMatchObject({ eventId: "transaction:t-late:successful", message });
		expect(info).toEqual({ status: 200, eventId: "transaction:t-late:successful" });
		expect(b.onError).not.toHaveBeenCalled();
	});

	it("a store that fails to claim gets 500 and the callback is not run", async () => {
		const { handler, onTransaction, onError } = setup({
			store: {
				claim: async () => {
					throw new Error("redis down");
				},
				confirm: () => {},
				release: () => {},
			},
		});
		expect((await handler(ipnRequest(transactionIpn("T-redis")))).status).toBe(500);
		expect(onTransaction).not.toHaveBeenCalled();
		expect(onError).toHaveBeenCalledWith(
			expect.objectContaining({ message: "redis down" }),
			expect.objectContaining({ status: 500 }),
		);
	});

	it("a store that fails to confirm still acknowledges the processed event, and reports it", async () => {
		const { handler, onError } = setup({
			store: {
				claim: () => "claimed",
				confirm: () => {
					throw new Error("write failed");
				},
				release: () => {},
			},
		});
		expect((await handler(ipnRequest(transactionIpn("T-confirm")))).status).toBe(200);
		expect(onError).toHaveBeenCalledWith(
			expect.objectContaining({ message: "write failed" }),
			expect.objectContaining({ status: 200 }),
		);
	});

	it("a throwing onError does not change the response", async () => {
		const { handler } = setup({
			onError: () => {
				throw new Error("logger broke");
			},
		});
		expect((await handler(ipnRequest("{"))).status).toBe(400);
	});
});

describe("createNotificationHandler options", () => {
	it("refuses missing callbacks and bad limits with ConfigurationError", () => {
		const base = { gatewayPublicKey, onTransaction: () => {}, onRefund: () => {} };
		expect(() => createNotificationHandler({ ...base, onRefund: undefined as never })).toThrow(ConfigurationError);
		expect(() => createNotificationHandler({ ...base, maxBodyBytes: 0 })).toThrow(ConfigurationError);
		expect(() => createNotificationHandler({ ...base, leaseMs: -1 })).toThrow(ConfigurationError);
		expect(() => createNotificationHandler({ ...base, store: {} as never })).toThrow(ConfigurationError);
		expect(() => createNotificationHandler({ ...base, callbackTimeoutMs: 0 })).toThrow(/callbackTimeoutMs/);
		expect(() => createNotificationHandler({ ...base, bodyTimeoutMs: 1.5 })).toThrow(/bodyTimeoutMs/);
		expect(() => createNotificationHandler({ ...base, startTimer: 5 as never })).toThrow(/startTimer/);
	});

	it("loads the keys up front, so a bad key fails at start-up, not on the first IPN", () => {
		expect(() =>
			createNotificationHandler({ gatewayPublicKey: "not a key", onTransaction: () => {}, onRefund: () => {} }),
		).toThrow(InvalidKeyError);
		expect(() =>
			createNotificationHandler({ gatewayPublicKey: keys.gatewayPrivate, onTransaction: () => {}, onRefund: () => {} }),
		).toThrow(InvalidKeyError);
	});
});
