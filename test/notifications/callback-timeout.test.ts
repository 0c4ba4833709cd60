import { afterEach, describe, expect, it, vi } from "vitest";
import {
	createMemoryStore,
	createNotificationHandler,
	type NotificationHandlerOptions,
	type NotificationStore,
	toNodeListener,
} from "../../src/index.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import { openMessage } from "../../src/signing/index.js";
import { cardFields, signedPost, startSandbox } from "../sandbox/helpers.js";
import { keys } from "../support/vectors.js";
import { deferred, gatewayPublicKey, ipnRequest, listen, tick, transactionIpn } from "./fixtures.js";

/** Time the test moves by hand: the handler's timers and the store's clock both follow it. */
function drivenTime() {
	const clock = new ControllableClock(Date.UTC(2030, 0, 1));
	return {
		clock,
		store: (): NotificationStore => createMemoryStore({ now: () => clock.nowMs() }),
		startTimer: (onExpiry: () => void, delayMs: number) => clock.schedule(clock.nowMs() + delayMs, onExpiry),
	};
}

async function statusAndBody(response: Response) {
	return { status: response.status, body: (await response.json()) as { returnCode: string; description?: string } };
}

/** Lets every pending promise and I/O callback run: no real time is waited for. */
async function settle() {
	for (let i = 0; i < 10; i++) await tick();
}

/** A callback whose every run waits for its own gate; `signals` has the context signal of each run. */
function gatedCallback() {
	const gates: ReturnType<typeof deferred<void>>[] = [];
	const signals: AbortSignal[] = [];
	const onTransaction: NotificationHandlerOptions["onTransaction"] = (_transaction, { signal }) => {
		signals.push(signal);
		const gate = deferred<void>();
		gates.push(gate);
		return gate.promise;
	};
	return { onTransaction, gates, signals };
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const close of cleanup.splice(0)) await close();
});

describe("a callback that never settles does not wedge its event", () => {
	it("sandbox as the gateway: a callback hanging on its first run only is processed on a later delivery", async () => {
		const time = drivenTime();
		const signals: AbortSignal[] = [];
		const firstRun = deferred();
		const handler = createNotificationHandler({
			gatewayPublicKey: keys.gatewayPublic,
			store: time.store(),
			startTimer: time.startTimer,
			onTransaction: (_transaction, { signal }) => {
				signals.push(signal);
				if (signals.length > 1) return undefined;
				firstRun.resolve();
				return new Promise(() => {}); // never settles
			},
			onRefund: () => {},
		});
		const receiver = await listen(toNodeListener(handler));
		// The sandbox retries at once; its acknowledgement deadline is only a backstop here.
		const server = await startSandbox({ ipn: { retryDelaysMs: [0], timeScale: 1, ackTimeoutMs: 5_000 } });
		cleanup.push(
			() => server.close(),
			() => receiver.close(),
		);
		const response = await signedPost(server.url, "/v2/card/api", cardFields(receiver.url, "4000000000000010"));
		const transactionId = String(openMessage(response.json, { publicKey: keys.gatewayPublic }).transactionId);
		await firstRun.promise;
		// Past the default callbackTimeoutMs (25 s) and leaseMs (60 s), at once.
		time.clock.advance(60_000);
		await server.sandbox.whenIdle();

		const attempts = server.sandbox.deliveries();
		expect(attempts.map((a) => [a.outcome, a.httpStatus, a.returnCode])).toEqual([
			["rejected", 503, "503"],
			["acknowledged", 200, "100"],
		]);
		expect(attempts[1]?.eventId).toBe(`transaction:${transactionId}:successful`);
		expect(signals).toHaveLength(2);
		expect(signals[0]?.aborted).toBe(true);
		expect(signals[0]?.reason).toMatchObject({ name: "TimeoutError" });
		expect(signals[1]?.aborted).toBe(false);
	});

	it("503 after callbackTimeoutMs (default 25 s), signal aborted; 409 within the lease, a new run after", async () => {
		const time = drivenTime();
		const { onTransaction, gates, signals } = gatedCallback();
		const onError = vi.fn();
		const handler = createNotificationHandler({
			gatewayPublicKey,
			store: time.store(),
			startTimer: time.startTimer,
			onTransaction,
			onRefund: () => {},
			onError,
		});
		const deliver = () => handler(ipnRequest(transactionIpn("T-hang")));
		let responded = 0;
		const first = deliver().then((response) => {
			responded++;
			return response;
		});
		await settle();
		expect(signals).toHaveLength(1);
		// A delivery while the run is going joins it.
		const joined = deliver().then((response) => {
			responded++;
			return response;
		});
		await settle();
		time.clock.advance(24_999);
		await settle();
		expect(responded).toBe(0);
		time.clock.advance(1);
		expect(await statusAndBody(await first)).toEqual({
			status: 503,
			body: { returnCode: "503", description: "The notification is still being processed; it will be retried." },
		});
		expect((await statusAndBody(await joined)).status).toBe(503);
		expect(signals).toHaveLength(1);
		expect(signals[0]?.aborted).toBe(true);
		expect(signals[0]?.reason).toMatchObject({ name: "TimeoutError", message: expect.stringContaining("25000 ms") });
		expect(onError).toHaveBeenCalledWith(signals[0]?.reason, { status: 503, eventId: "transaction:t-hang:successful" });

		// The lease (60 s by default) still holds: no second run yet.
		expect((await statusAndBody(await deliver())).status).toBe(409);
		expect(signals).toHaveLength(1);
		// Once it has ended, the next delivery runs the callback again, though the first run never settled.
		time.clock.advance(35_000);
		const second = deliver();
		await settle();
		expect(signals).toHaveLength(2);
		expect(signals[1]?.aborted).toBe(false);
		gates[1]?.resolve(undefined);
		expect(await statusAndBody(await second)).toEqual({
			status: 200,
			body: expect.objectContaining({ returnCode: "100" }),
		});
		// The first run settling at last changes nothing.
		gates[0]?.resolve(undefined);
		await settle();
		expect(await statusAndBody(await deliver())).toEqual({
			status: 200,
			body: { returnCode: "100", description: "Already processed." },
		});
		expect(signals).toHaveLength(2);
	});

	it("never waits past the lease: with a shorter leaseMs, later deliveries do not join the old run", async () => {
		const time = drivenTime();
		const { onTransaction, gates, signals } = gatedCallback();
		const handler = createNotificationHandler({
			gatewayPublicKey,
			store: time.store(),
			startTimer: time.startTimer,
			leaseMs: 10_000,
			callbackTimeoutMs: 25_000,
			onTransaction,
			onRefund: () => {},
		});
		const deliver = () => handler(ipnRequest(transactionIpn("T-lease")));
		const first = deliver();
		await settle();
		time.clock.advance(10_000);
		expect((await first).status).toBe(503);
		const second = deliver();
		await settle();
		expect(signals).toHaveLength(2);
		expect(signals[0]?.aborted).toBe(true);
		gates[1]?.resolve(undefined);
		expect((await second).status).toBe(200);
	});

	it("a run that succeeds after the handler stopped waiting still marks the event processed", async () => {
		const time = drivenTime();
		const { onTransaction, gates, signals } = gatedCallback();
		const { startTimer } = time;
		const handler = createNotificationHandler({
			gatewayPublicKey,
			store: time.store(),
			startTimer,
			onTransaction,
			onRefund: () => {},
		});
		const first = handler(ipnRequest(transactionIpn("T-late")));
		await settle();
		time.clock.advance(25_000);
		expect((await first).status).toBe(503);
		gates[0]?.resolve(undefined);
		await settle();
		const again = await statusAndBody(await handler(ipnRequest(transactionIpn("T-late"))));
		expect(again).toEqual({ status: 200, body: { returnCode: "100", description: "Already processed." } });
		expect(signals).toHaveLength(1);
	});

	it("a run failing after the handler stopped waiting is reported; the claim (maybe a newer one's) stays", async () => {
		const time = drivenTime();
		const { onTransaction, gates } = gatedCallback();
		const base = time.store();
		const store = { claim: vi.fn(base.claim), confirm: vi.fn(base.confirm), release: vi.fn(base.release) };
		const onError = vi.fn();
		const options = {
			gatewayPublicKey,
			store,
			startTimer: time.startTimer,
			onTransaction,
			onRefund: () => {},
			onError,
		};
		const handler = createNotificationHandler(options);
		const first = handler(ipnRequest(transactionIpn("T-late-fail")));
		await settle();
		time.clock.advance(60_000);
		expect((await first).status).toBe(503);
		const second = handler(ipnRequest(transactionIpn("T-late-fail")));
		await settle();
		gates[0]?.reject(new Error("gave up at last"));
		await settle();
		expect(store.release).not.toHaveBeenCalled();
		expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: "gave up at last" }), {
			status: 503,
			eventId: "transaction:t-late-fail:successful",
		});
		gates[1]?.resolve(undefined);
		expect((await second).status).toBe(200);
		expect(store.confirm).toHaveBeenCalledTimes(1);
	});

	it("a callback that settles in time is responded to as before, and its timer is cancelled", async () => {
		const time = drivenTime();
		const handler = createNotificationHandler({
			gatewayPublicKey,
			store: time.store(),
			startTimer: time.startTimer,
			onTransaction: async () => {},
			onRefund: () => {},
		});
		expect((await handler(ipnRequest(transactionIpn("T-fast")))).status).toBe(200);
		// Nothing is left scheduled: moving past every deadline fires nothing.
		expect(() => time.clock.advance(3_600_000)).not.toThrow();
		expect((await statusAndBody(await handler(ipnRequest(transactionIpn("T-fast"))))).body.description).toBe(
			"Already processed.",
		);
	});
});
