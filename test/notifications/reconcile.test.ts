// createReconciler against the sandbox over real loopback HTTP, with the real client:
// missed IPNs are found by query and handed on once, under the IPN's own claim.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
	ConfigurationError,
	createMemoryStore,
	createNotificationHandler,
	createReconciler,
	GatewayClient,
	LeaseExpiredError,
	type NotificationContext,
	type NotificationStore,
	NotificationStoreError,
	type ProcessingError,
	RateLimitError,
	type ReconcilerOptions,
	type Refund,
	type Transaction,
	toNodeListener,
} from "../../src/index.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import { cardFields, MERCHANT_ID, type SandboxServer, startSandbox } from "../sandbox/helpers.js";
import { keys } from "../support/vectors.js";
import { deferred, ipnRequest, signedBody, transactionFields } from "./fixtures.js";

type CardParams = Parameters<GatewayClient["card"]["charge"]>[0];

/** The merchant's IPN route on loopback: the SDK's handler, with a store and callbacks the test chooses. */
async function startShop() {
	let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
	const server = createServer((req, res) => {
		if (handler) handler(req, res);
		else res.writeHead(503, { "content-type": "application/json" }).end('{"returnCode":"503"}');
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		/** Serves IPNs with this handler; without one every IPN gets 503 (a missed IPN). */
		serve(options: Parameters<typeof createNotificationHandler>[0] | undefined) {
			handler = options ? toNodeListener(createNotificationHandler(options)) : undefined;
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** Callbacks that count their calls per event and keep the contexts. */
function recorder() {
	const runs = new Map<string, number>();
	const contexts: NotificationContext[] = [];
	const record = (context: NotificationContext) => {
		runs.set(context.eventId, (runs.get(context.eventId) ?? 0) + 1);
		contexts.push(context);
	};
	return {
		runs,
		contexts,
		onTransaction: vi.fn(async (_t: Transaction, context: NotificationContext) => record(context)),
		onRefund: vi.fn(async (_r: Refund, context: NotificationContext) => record(context)),
	};
}

describe("createReconciler", () => {
	let sandbox: SandboxServer;
	let shop: Awaited<ReturnType<typeof startShop>>;
	let gateway: GatewayClient;
	let order = 0;

	const clientFor = (baseUrl: string, overrides: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
		new GatewayClient({
			baseUrl,
			merchantId: MERCHANT_ID,
			privateKey: keys.merchantPrivate,
			gatewayPublicKey: keys.gatewayPublic,
			allowLoopbackHttp: true,
			...overrides,
		});
	const card = (number: string): CardParams => {
		const orderRef = `reconcile-${Date.now()}-${++order}`;
		const { merchantId: _m, paymentMethod: _p, ...params } = cardFields(shop.url, number, { orderRef });
		return params as unknown as CardParams;
	};
	/** An approved S2S charge: its IPN goes out at once (to wherever the shop routes it). */
	const paid = async () => (await gateway.card.charge(card("4000000000000010"))).transactionId;

	beforeAll(async () => {
		// No retries: an IPN that is not acknowledged at once stays missed, as reconciliation assumes.
		sandbox = await startSandbox({ ipn: { retryDelaysMs: [] } });
		shop = await startShop();
		gateway = clientFor(sandbox.url);
	});
	afterAll(async () => {
		await sandbox?.close();
		await shop?.close();
	});

	it("hands each missed final event on once, as its IPN would; reports pending and processed ones", async () => {
		shop.serve(undefined);
		const successful = [await paid(), await paid()];
		const refusal = await gateway.card.charge(card("4000000000000028")).catch((e: unknown) => e);
		const declined = (refusal as ProcessingError).transactionId as string;
		const pending = (await gateway.card.charge(card("4000000000000044"))).transactionId;
		const refund = (await gateway.refunds.create({ transactionId: successful[0] as string, amount: 10 })).refundId;
		await sandbox.sandbox.whenIdle();
		const store = createMemoryStore();
		const calls = recorder();
		const reconciler = createReconciler({
			gateway,
			store,
			onTransaction: calls.onTransaction,
			onRefund: calls.onRefund,
		});
		const progress = vi.fn();
		const input = { transactions: [...successful, declined, pending, successful[1] as string], refunds: [refund] };
		const first = await reconciler.reconcile(input, { onProgress: progress });
		const counts = { total: 5, done: 5, processed: 4, alreadyProcessed: 0, inProgress: 0, pending: 1, failed: 0 };
		expect(first).toMatchObject(counts);
		expect(progress.mock.calls.map(([p]) => p.done)).toEqual([1, 2, 3, 4, 5]);
		expect(progress.mock.calls.at(-1)?.[0]).toEqual(counts);
		const stillPending = first.outcomes.find((o) => o.id === pending);
		expect(stillPending).toMatchObject({ result: "pending", status: "pending", eventId: undefined });
		expect([...calls.runs.keys()].sort()).toEqual(
			[
				`transaction:${successful[0]}:successful`,
				`transaction:${successful[1]}:successful`,
				`transaction:${declined}:failed`,
				`refund:${refund}:refund_successful`,
			].sort(),
		);
		const signal = expect.any(AbortSignal);
		expect(calls.contexts[0]).toEqual({ eventId: expect.any(String), signVersion: "2.0", signal, reconciled: true });
		expect(calls.contexts.some((c) => c.signal.aborted)).toBe(false);
		expect(calls.onTransaction.mock.calls.map(([t]) => t.transactionId)).toContain(declined);

		const second = await reconciler.reconcile(input);
		expect(second).toMatchObject({ processed: 0, alreadyProcessed: 4, pending: 1 });
		// The pending charge settles; the next run hands on its final state, a new event.
		sandbox.sandbox.clock.advance(5_000);
		await sandbox.sandbox.whenIdle();
		const third = await reconciler.reconcile(input);
		expect(third).toMatchObject({ processed: 1, alreadyProcessed: 4, pending: 0 });
		expect(calls.runs.get(`transaction:${pending}:successful`)).toBe(1);
		expect([...calls.runs.values()].every((n) => n === 1)).toBe(true);
	});

	it("an IPN and a reconciliation of one event run the callback once, in either order", async () => {
		const store = createMemoryStore();
		const calls = recorder();
		const { onTransaction, onRefund } = calls;
		const options = { gatewayPublicKey: keys.gatewayPublic, store, onTransaction, onRefund };
		// IPN first: the reconciliation finds it processed.
		shop.serve(options);
		const viaIpn = await paid();
		await sandbox.sandbox.whenIdle();
		const reconciler = createReconciler({
			gateway,
			store,
			onTransaction: calls.onTransaction,
			onRefund: calls.onRefund,
		});
		expect(await reconciler.reconcile({ transactions: [viaIpn] })).toMatchObject({ processed: 0, alreadyProcessed: 1 });
		// Reconciliation first: the IPN delivered afterwards is acknowledged as a duplicate.
		shop.serve(undefined);
		const viaQuery = await paid();
		await sandbox.sandbox.whenIdle();
		expect(await reconciler.reconcile({ transactions: [viaQuery] })).toMatchObject({ processed: 1 });
		shop.serve(options);
		const delivery = sandbox.sandbox.deliveries().find((d) => d.eventId === `transaction:${viaQuery}:successful`);
		sandbox.sandbox.redeliver(delivery?.deliveryId as string);
		await sandbox.sandbox.whenIdle();
		const last = sandbox.sandbox.deliveries().filter((d) => d.eventId === `transaction:${viaQuery}:successful`);
		expect(last.at(-1)).toMatchObject({ outcome: "acknowledged", returnCode: "100" });
		expect(calls.runs.get(`transaction:${viaIpn}:successful`)).toBe(1);
		expect(calls.runs.get(`transaction:${viaQuery}:successful`)).toBe(1);
		expect(calls.contexts.map((c) => c.reconciled)).toEqual([undefined, true]);
	});

	it("an IPN spelling the id in upper case and a reconciliation answered in lower case are one event", async () => {
		shop.serve(undefined);
		const id = await paid();
		await sandbox.sandbox.whenIdle();
		const store = createMemoryStore();
		const calls = recorder();
		const { onTransaction, onRefund } = calls;
		const handler = createNotificationHandler({ gatewayPublicKey: keys.gatewayPublic, store, onTransaction, onRefund });
		const ipn = signedBody({ ...transactionFields(), transactionId: id.toUpperCase(), status: "successful" });
		expect((await handler(ipnRequest(ipn))).status).toBe(200);
		const reconciler = createReconciler({ gateway, store, onTransaction, onRefund });
		// Asked for in either spelling: the same transaction, queried once, already processed.
		const report = await reconciler.reconcile({ transactions: [id.toUpperCase(), id] });
		expect(report).toMatchObject({ total: 1, processed: 0, alreadyProcessed: 1 });
		expect(report.outcomes[0]?.eventId).toBe(`transaction:${id.toLowerCase()}:successful`);
		expect(calls.onTransaction).toHaveBeenCalledTimes(1);
	});

	it("a store answering outside the contract (a raw SET NX null): failed, NotificationStoreError, no callback", async () => {
		shop.serve(undefined);
		const id = await paid();
		await sandbox.sandbox.whenIdle();
		const calls = recorder();
		const store: NotificationStore = { claim: () => null as never, confirm: () => {}, release: () => {} };
		const reconciler = createReconciler({
			gateway,
			store,
			onTransaction: calls.onTransaction,
			onRefund: calls.onRefund,
		});
		const report = await reconciler.reconcile({ transactions: [id] });
		expect(report).toMatchObject({ failed: 1, processed: 0 });
		const error = report.outcomes[0]?.error;
		expect(error).toBeInstanceOf(NotificationStoreError);
		expect(error).toMatchObject({ message: expect.stringContaining("answered null") });
		expect(calls.onTransaction).not.toHaveBeenCalled();
	});

	it("a store that does not answer within storeTimeoutMs: failed, and a claim granted later is given back", async () => {
		shop.serve(undefined);
		const id = await paid();
		await sandbox.sandbox.whenIdle();
		const clock = new ControllableClock(Date.UTC(2030, 0, 1));
		const base = createMemoryStore();
		const answers: (() => void)[] = [];
		const release = vi.fn(base.release);
		const store: NotificationStore = {
			claim: (...args) => new Promise((resolve) => answers.push(() => resolve(base.claim(...args)))),
			confirm: base.confirm,
			release,
		};
		const calls = recorder();
		const reconciler = createReconciler({
			gateway,
			store,
			onTransaction: calls.onTransaction,
			onRefund: calls.onRefund,
			storeTimeoutMs: 1500,
			startTimer: (onExpiry, delayMs) => clock.schedule(clock.nowMs() + delayMs, onExpiry),
		});
		const running = reconciler.reconcile({ transactions: [id] });
		while (answers.length === 0) await new Promise((resolve) => setImmediate(resolve));
		clock.advance(1500);
		const report = await running;
		expect(report).toMatchObject({ failed: 1 });
		expect(report.outcomes[0]?.error).toMatchObject({ message: expect.stringContaining("did not answer the claim") });
		answers.shift()?.();
		while (release.mock.calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
		expect(base.claim(`transaction:${id}:successful`, 60_000, "next")).toBe("claimed");
		expect(calls.onTransaction).not.toHaveBeenCalled();
	});

	it("an async onError or onProgress that rejects does not reach the process", async () => {
		const unhandled: unknown[] = [];
		const record = (reason: unknown) => void unhandled.push(reason);
		process.on("unhandledRejection", record);
		try {
			const reconciler = createReconciler({
				gateway,
				store: createMemoryStore(),
				onTransaction: () => {},
				onRefund: () => {},
				onError: async () => {
					throw new Error("logger down");
				},
			});
			const onProgress = async () => {
				throw new Error("progress bar gone");
			};
			const report = await reconciler.reconcile({ transactions: ["01JD5Z8Q4V7M1X2C3B4N5P6R7S"] }, { onProgress });
			expect(report).toMatchObject({ failed: 1, done: 1 });
			for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
			expect(unhandled).toEqual([]);
		} finally {
			process.off("unhandledRejection", record);
		}
	});

	it("an event whose IPN callback is running is reported in progress, not run again", async () => {
		const store = createMemoryStore();
		const gate = deferred();
		const entered = deferred();
		const calls = recorder();
		shop.serve({
			gatewayPublicKey: keys.gatewayPublic,
			store,
			onTransaction: async () => {
				entered.resolve();
				await gate.promise;
			},
			onRefund: () => {},
		});
		const id = await paid();
		await entered.promise;
		const reconciler = createReconciler({
			gateway,
			store,
			onTransaction: calls.onTransaction,
			onRefund: calls.onRefund,
		});
		expect(await reconciler.reconcile({ transactions: [id] })).toMatchObject({ inProgress: 1, processed: 0 });
		gate.resolve();
		await sandbox.sandbox.whenIdle();
		expect(await reconciler.reconcile({ transactions: [id] })).toMatchObject({ alreadyProcessed: 1 });
		expect(calls.onTransaction).not.toHaveBeenCalled();
	});

	it("a callback that throws: failed, kept as a failed event, its claim released, and the next run processes it", async () => {
		shop.serve(undefined);
		const id = await paid();
		await sandbox.sandbox.whenIdle();
		const store = createMemoryStore();
		const recordFailure = vi.spyOn(store, "recordFailure");
		const onError = vi.fn();
		let fail = true;
		const onTransaction = vi.fn(async () => {
			if (fail) throw new Error("warehouse offline");
		});
		const reconciler = createReconciler({ gateway, store, onTransaction, onRefund: () => {}, onError });
		const first = await reconciler.reconcile({ transactions: [id] });
		expect(first).toMatchObject({ failed: 1, processed: 0 });
		expect(first.outcomes[0]).toMatchObject({
			result: "failed",
			eventId: `transaction:${id}:successful`,
			error: expect.objectContaining({ message: "warehouse offline" }),
		});
		expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: "warehouse offline" }), {
			kind: "transaction",
			id,
			eventId: `transaction:${id}:successful`,
		});
		// Recorded and released in one step, with no message: a query's answer is no signed IPN to replay.
		expect(recordFailure).toHaveBeenCalledWith(`transaction:${id}:successful`, expect.any(String), {
			message: "",
			error: "Error: warehouse offline",
			release: true,
		});
		expect(store.failedEvent(`transaction:${id}:successful`)).toMatchObject({ attempts: 1 });
		fail = false;
		expect(await reconciler.reconcile({ transactions: [id] })).toMatchObject({ processed: 1, failed: 0 });
		expect(onTransaction).toHaveBeenCalledTimes(2);
		expect(store.failedEvent(`transaction:${id}:successful`)).toBeUndefined();
	});

	it("a callback outliving its lease: its signal aborts, it failed, and a late success still confirms", async () => {
		shop.serve(undefined);
		const id = await paid();
		await sandbox.sandbox.whenIdle();
		let storeNow = Date.UTC(2030, 0, 1);
		const store = createMemoryStore({ now: () => storeNow });
		const onError = vi.fn();
		const runs: { signal: AbortSignal; finish: ReturnType<typeof deferred<void>> }[] = [];
		const onTransaction = (_t: Transaction, { signal }: NotificationContext) => {
			const finish = deferred<void>();
			runs.push({ signal, finish });
			return finish.promise;
		};
		// A 50 ms lease that this callback does not settle within: the reconciler stops waiting when it ends.
		const reconciler = createReconciler({ gateway, store, onTransaction, onRefund: () => {}, onError, leaseMs: 50 });
		const first = await reconciler.reconcile({ transactions: [id] });
		expect(first).toMatchObject({ failed: 1, processed: 0 });
		const timeout = { name: "TimeoutError", message: expect.stringContaining("50 ms lease") };
		expect(first.outcomes[0]?.error).toMatchObject(timeout);
		expect(runs[0]?.signal.aborted).toBe(true);
		// The store's lease has ended too: the next run claims the event and runs the callback again.
		storeNow += 51;
		const second = reconciler.reconcile({ transactions: [id] });
		while (runs.length < 2) await new Promise((resolve) => setImmediate(resolve));
		runs[1]?.finish.resolve();
		expect(await second).toMatchObject({ processed: 1 });
		// The first run succeeding at last changes nothing but a report.
		runs[0]?.finish.resolve();
		const reported = () => onError.mock.calls.some(([error]) => error instanceof LeaseExpiredError);
		while (!reported()) await new Promise((resolve) => setImmediate(resolve));
		expect(await reconciler.reconcile({ transactions: [id] })).toMatchObject({ alreadyProcessed: 1 });
	});

	it("failures stay per id: an unknown transaction, a store that is down", async () => {
		shop.serve(undefined);
		const id = await paid();
		await sandbox.sandbox.whenIdle();
		const calls = recorder();
		const unknown = "01JD5Z8Q4V7M1X2C3B4N5P6R7S";
		const { onTransaction, onRefund } = calls;
		const ok = await createReconciler({ gateway, store: createMemoryStore(), onTransaction, onRefund }).reconcile({
			transactions: [unknown, id],
		});
		expect(ok).toMatchObject({ processed: 1, failed: 1 });
		expect(ok.outcomes.find((o) => o.id === unknown)?.error).toBeInstanceOf(Error);
		const down: NotificationStore = {
			claim: async () => {
				throw new Error("store unreachable");
			},
			confirm: () => {},
			release: () => {},
		};
		const failing = createReconciler({ gateway, store: down, onTransaction, onRefund });
		const report = await failing.reconcile({ transactions: [id] });
		expect(report).toMatchObject({ failed: 1, processed: 0 });
		expect(calls.onTransaction).toHaveBeenCalledTimes(1);
	});

	describe("through a proxy that counts the queries", () => {
		/** In front of the sandbox: `decide` may respond to a request itself (a 429); the rest is forwarded. */
		type Own = { status: number; headers: Record<string, string> } | undefined;
		async function startProxy(decide: (path: string, n: number) => Own, hold = false) {
			const seen: { path: string; at: number; status: number }[] = [];
			let inFlight = 0;
			let maxInFlight = 0;
			/** The queries held back, oldest first, until the test lets each go. */
			let held: (() => void)[] = [];
			let heldChanged = () => {};
			const server = createServer((req, res) => {
				const chunks: Buffer[] = [];
				req.on("data", (chunk: Buffer) => chunks.push(chunk));
				req.on("end", async () => {
					const path = req.url ?? "/";
					const own = decide(path, seen.length + 1);
					seen.push({ path, at: Date.now(), status: own?.status ?? 200 });
					if (own) {
						res.writeHead(own.status, { "content-type": "application/json", ...own.headers });
						res.end('{"status":"error","message":"Too many requests"}');
						return;
					}
					inFlight++;
					maxInFlight = Math.max(maxInFlight, inFlight);
					if (hold) {
						const released = new Promise<void>((resolve) => held.push(resolve));
						heldChanged();
						await released;
					}
					const headers = { "content-type": "application/json" };
					const forwarded = await fetch(`${sandbox.url}${path}`, {
						method: "POST",
						headers,
						body: Buffer.concat(chunks),
					});
					inFlight--;
					res.writeHead(forwarded.status, {
						"content-type": forwarded.headers.get("content-type") ?? "application/json",
					});
					res.end(await forwarded.text());
				});
			});
			await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
			return {
				url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
				seen,
				maxInFlight: () => maxInFlight,
				/** Resolves once `count` queries are held back together. */
				whenHeld: (count: number) =>
					new Promise<void>((resolve) => {
						heldChanged = () => held.length >= count && resolve();
						heldChanged();
					}),
				/** Lets the oldest held query go on to the sandbox. */
				releaseOldest: () => held.shift()?.(),
				close: () => {
					held = [];
					return new Promise<void>((resolve) => server.close(() => resolve()));
				},
			};
		}

		it("backs off on RateLimitError (Retry-After honoured), then processes; only queries are sent", async () => {
			shop.serve(undefined);
			const ids = [await paid(), await paid(), await paid()];
			await sandbox.sandbox.whenIdle();
			// The three workers' first queries are all refused with Retry-After: 1.
			const limited = { status: 429, headers: { "retry-after": "1" } };
			const proxy = await startProxy((_path, n) => (n <= 3 ? limited : undefined));
			try {
				const calls = recorder();
				const reconciler = createReconciler({
					gateway: clientFor(proxy.url, { maxRetries: 0 }),
					store: createMemoryStore(),
					onTransaction: calls.onTransaction,
					onRefund: calls.onRefund,
					concurrency: 3,
				});
				const report = await reconciler.reconcile({ transactions: ids });
				expect(report).toMatchObject({ processed: 3, failed: 0 });
				expect(new Set(proxy.seen.map((s) => s.path))).toEqual(new Set(["/v2/checkout/query"]));
				expect(proxy.seen.map((s) => s.status)).toEqual([429, 429, 429, 200, 200, 200]);
				// Nothing was sent until the gateway's Retry-After (1 s) had passed after the last 429.
				const lastLimited = proxy.seen[2]?.at as number;
				for (const later of proxy.seen.slice(3)) expect(later.at - lastLimited).toBeGreaterThanOrEqual(1000);
			} finally {
				await proxy.close();
			}
		});

		it("gives up on an id after rateLimitRetries and reports RateLimitError", async () => {
			const proxy = await startProxy(() => ({ status: 429, headers: {} }));
			try {
				const reconciler = createReconciler({
					gateway: clientFor(proxy.url, { maxRetries: 0 }),
					store: createMemoryStore(),
					onTransaction: () => {},
					onRefund: () => {},
					rateLimitRetries: 2,
					rateLimitDelayMs: 1,
				});
				const report = await reconciler.reconcile({ refunds: ["01JD60AAAAAAAAAAAAAAAAAAAA"] });
				expect(report).toMatchObject({ failed: 1 });
				expect(report.outcomes[0]?.error).toBeInstanceOf(RateLimitError);
				expect(proxy.seen.map((s) => s.path)).toEqual(Array(3).fill("/v2/refund/query"));
			} finally {
				await proxy.close();
			}
		});

		it("never runs more queries at once than its concurrency", async () => {
			shop.serve(undefined);
			const ids: string[] = [];
			for (let i = 0; i < 8; i++) ids.push(await paid());
			await sandbox.sandbox.whenIdle();
			const proxy = await startProxy(() => undefined, true);
			try {
				const calls = recorder();
				const store = createMemoryStore();
				const reconciler = createReconciler({ gateway: clientFor(proxy.url), store, ...calls, concurrency: 3 });
				const report = reconciler.reconcile({ transactions: ids });
				// Every query is held until the test lets it go: one at a time, each once as many as the
				// concurrency allows (or as are left) are held together. No clock decides when.
				for (let released = 0; released < ids.length; released++) {
					await proxy.whenHeld(Math.min(3, ids.length - released));
					proxy.releaseOldest();
				}
				expect(await report).toMatchObject({ processed: 8 });
				expect(proxy.maxInFlight()).toBeLessThanOrEqual(3);
			} finally {
				await proxy.close();
			}
		});
	});

	it("refuses bad options and input with ConfigurationError naming each field", async () => {
		const base: ReconcilerOptions = {
			gateway,
			store: createMemoryStore(),
			onTransaction: () => {},
			onRefund: () => {},
		};
		expect(() => createReconciler({ ...base, gateway: {} as never, concurrency: 0, leaseMs: 1.5 })).toThrow(
			/gateway: must be a GatewayClient.*leaseMs: must be an integer from 1 to 2147483647.*concurrency: must be a positive integer/,
		);
		expect(() => createReconciler({ ...base, store: undefined as never })).toThrow(ConfigurationError);
		expect(() => createReconciler({ ...base, pendingStatuses: "pending" as never })).toThrow(/pendingStatuses/);
		const reconciler = createReconciler(base);
		const id = "01JD5Z8Q4V7M1X2C3B4N5P6R7S";
		await expect(reconciler.reconcile([id] as never)).rejects.toThrow(/input: must be an object/);
		await expect(reconciler.reconcile({ transactions: id as never })).rejects.toThrow(/transactions: must be an array/);
		expect(await reconciler.reconcile({})).toMatchObject({ total: 0, done: 0, outcomes: [] });
	});
});
