// Failed events through the handler: kept with the verified message, the attempts and the redacted
// error; listed, replayed through the same claim, discarded; acknowledged after n attempts only when
// the merchant opts in. The memory store on a clock the test drives; the real stores run the same
// contract in test/stores (contract.test.ts) and the fleet test (fleet.test.ts).
import { describe, expect, it } from "vitest";
import {
	ConfigurationError,
	createMemoryStore,
	createNotificationHandler,
	type NotificationErrorInfo,
	type NotificationHandlerOptions,
	type NotificationStore,
	ReplayRefusedError,
	type Transaction,
	verifyNotification,
} from "../../src/index.js";
import { replays } from "../../src/notifications/claims/replay-watch.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import { deferred, gatewayPublicKey, ipnRequest, tick, transactionIpn } from "./fixtures.js";

const CARD = "4111 1111 1111 1111";

function drivenTime() {
	const clock = new ControllableClock(Date.UTC(2030, 0, 1));
	return {
		clock,
		store: () => createMemoryStore({ now: () => clock.nowMs() }),
		startTimer: (onExpiry: () => void, delayMs: number) => clock.schedule(clock.nowMs() + delayMs, onExpiry),
	};
}

async function settle() {
	for (let i = 0; i < 10; i++) await tick();
}

/** A handler whose transaction callback throws while `broken.now` is true; every run's transaction is kept. */
function setUp(options: Partial<NotificationHandlerOptions> = {}) {
	const time = drivenTime();
	const broken = { now: true };
	const received: Transaction[] = [];
	const errors: [unknown, NotificationErrorInfo][] = [];
	const handler = createNotificationHandler({
		gatewayPublicKey,
		store: time.store(),
		startTimer: time.startTimer,
		onTransaction: (transaction) => {
			received.push(transaction);
			if (broken.now) throw new TypeError(`orders table locked while saving card ${CARD}`);
		},
		onRefund: () => {},
		onError: (error, info) => void errors.push([error, info]),
		...options,
	});
	const deliver = async (body: string) => {
		const response = await handler(ipnRequest(body));
		return { status: response.status, body: (await response.json()) as { returnCode: string; description?: string } };
	};
	return { handler, time, broken, received, errors, deliver };
}

describe("failed events are kept, not lost", () => {
	it("a thrown callback: 500, kept with the signed message, attempts and the redacted error; a replay clears it", async () => {
		const { handler, broken, received, deliver } = setUp();
		const body = transactionIpn("T-FAIL-1");
		const eventId = "transaction:t-fail-1:successful";
		for (let attempt = 1; attempt <= 2; attempt++) {
			const response = await deliver(body);
			expect(response.status).toBe(500);
			expect(response.body.returnCode).not.toBe("100");
		}
		const page = await handler.failedEvents.list();
		expect(page.next).toBeUndefined();
		expect(page.events).toHaveLength(1);
		const [failed] = page.events;
		expect(failed).toMatchObject({ eventId, attempts: 2 });
		expect(failed?.lastError).toBe("TypeError: orders table locked while saving card 411111******1111");
		expect(failed?.firstFailedAt).toEqual(new Date(Date.UTC(2030, 0, 1)));
		// What the callback received, verified again from the signed message: the replay needs no gateway.
		const verified = verifyNotification(body, { gatewayPublicKey });
		expect(failed?.event).toEqual(verified);
		expect(await handler.failedEvents.get(eventId)).toEqual(failed);

		broken.now = false;
		expect(await handler.failedEvents.retry(eventId)).toEqual({ eventId, result: "processed" });
		expect(received).toHaveLength(3);
		expect(received[2]).toEqual(verified.type === "transaction" ? verified.transaction : undefined);
		expect((await handler.failedEvents.list()).events).toEqual([]);
		expect(await handler.failedEvents.get(eventId)).toBeUndefined();
		// The gateway's next retry finds it processed; a second replay finds nothing to replay.
		expect((await deliver(body)).body).toEqual({ returnCode: "100", description: "Already processed." });
		expect(await handler.failedEvents.retry(eventId)).toEqual({ eventId, result: "not_found" });
		expect(received).toHaveLength(3);
	});

	it("a later gateway delivery that succeeds clears the record; a failed replay counts one more attempt", async () => {
		const { handler, broken, deliver } = setUp();
		const [first, second] = [transactionIpn("T-FAIL-2"), transactionIpn("T-FAIL-3")];
		await deliver(first);
		await deliver(second);
		const retry = await handler.failedEvents.retry("transaction:t-fail-3:successful");
		expect(retry).toMatchObject({ result: "failed", attempts: 2 });
		expect(retry.error).toBeInstanceOf(TypeError);
		broken.now = false;
		expect((await deliver(first)).body.returnCode).toBe("100");
		const listed = (await handler.failedEvents.list()).events.map((event) => [event.eventId, event.attempts]);
		expect(listed).toEqual([["transaction:t-fail-3:successful", 2]]);
	});

	it("a timed-out callback is kept (the claim stays while it runs); its late success clears the record", async () => {
		const gate = deferred();
		const { handler, time, deliver } = setUp({
			callbackTimeoutMs: 1000,
			onTransaction: () => gate.promise,
		});
		const response = deliver(transactionIpn("T-SLOW"));
		await settle();
		time.clock.advance(1000);
		expect((await response).status).toBe(503);
		const [kept] = (await handler.failedEvents.list()).events;
		expect(kept).toMatchObject({ eventId: "transaction:t-slow:successful", attempts: 1 });
		expect(kept?.lastError).toMatch(/^DOMException \(TimeoutError\): The callback did not settle within 1000 ms/);
		// A replay now finds the first run's claim still held: nothing runs twice.
		expect(await handler.failedEvents.retry("transaction:t-slow:successful")).toMatchObject({
			result: "in_progress",
		});
		gate.resolve();
		await settle();
		expect((await handler.failedEvents.list()).events).toEqual([]);
	});

	it("a replay and a gateway delivery at the same moment: the callback runs once", async () => {
		let runs = 0;
		const gate = deferred();
		const broken = { now: true };
		const { handler, deliver } = setUp({
			onTransaction: async () => {
				runs++;
				if (broken.now) throw new Error("down");
				await gate.promise;
			},
		});
		const body = transactionIpn("T-RACE");
		const eventId = "transaction:t-race:successful";
		await deliver(body);
		broken.now = false;
		runs = 0;
		const replay = handler.failedEvents.retry(eventId);
		const delivery = deliver(body);
		const secondReplay = handler.failedEvents.retry(eventId);
		await settle();
		gate.resolve();
		const results = [await replay, await delivery, await secondReplay];
		expect(runs).toBe(1);
		expect(results[0]).toEqual({ eventId, result: "processed" });
		expect(results[1]).toMatchObject({ status: 409 });
		expect(results[2]).toEqual({ eventId, result: "in_progress" });
	});

	it("acknowledgeAfterAttempts: 3: two failed deliveries get 500, the third 200 + 100; the event stays kept", async () => {
		const { handler, errors, deliver } = setUp({ acknowledgeAfterAttempts: 3 });
		const body = transactionIpn("T-PARK");
		expect((await deliver(body)).status).toBe(500);
		expect((await deliver(body)).status).toBe(500);
		const third = await deliver(body);
		expect(third).toEqual({
			status: 200,
			body: {
				returnCode: "100",
				description: "The callback failed 3 times; the event is kept as failed for a replay.",
			},
		});
		expect(errors.map(([, info]) => info.status)).toEqual([500, 500, 200]);
		expect(errors[2]?.[0]).toBeInstanceOf(TypeError);
		expect((await handler.failedEvents.list()).events).toMatchObject([{ attempts: 3 }]);
	});

	it("by default a failed callback is never acknowledged: ten failed deliveries, ten 500s", async () => {
		const { handler, deliver } = setUp();
		const body = transactionIpn("T-NEVER");
		for (let attempt = 0; attempt < 10; attempt++) {
			const response = await deliver(body);
			expect(response.status).toBe(500);
			expect(response.body.returnCode).not.toBe("100");
		}
		expect((await handler.failedEvents.list()).events).toMatchObject([{ attempts: 10 }]);
	});

	it("firstFailedAt is the first failure's time and lastFailedAt the latest's, by the store's clock", async () => {
		const { handler, time, deliver } = setUp();
		const body = transactionIpn("T-TIMES");
		await deliver(body);
		time.clock.advance(5 * 60_000);
		await deliver(body);
		const [failed] = (await handler.failedEvents.list()).events;
		expect(failed).toMatchObject({
			attempts: 2,
			firstFailedAt: new Date(Date.UTC(2030, 0, 1)),
			lastFailedAt: new Date(Date.UTC(2030, 0, 1, 0, 5)),
		});
	});

	it("a body a parser already made (an object) is kept as that object and replays, verified again", async () => {
		const { handler, broken, received } = setUp();
		const body = transactionIpn("T-PARSED");
		const delivery = {
			method: "POST",
			contentType: "application/json",
			contentLength: null,
			readBody: async () => JSON.parse(body) as unknown,
		};
		expect((await handler.handle(delivery)).status).toBe(500);
		broken.now = false;
		expect(await handler.failedEvents.retry("transaction:t-parsed:successful")).toMatchObject({
			result: "processed",
		});
		expect(received.map((transaction) => transaction.transactionId)).toEqual(["T-PARSED", "T-PARSED"]);
	});

	it("a replay is verified with the handler's options as they are now: a 2.0 record under acceptVersions [2.1] is refused", async () => {
		const store = drivenTime().store();
		const first = setUp({ store });
		await first.deliver(transactionIpn("T-PINNED"));
		const pinned = setUp({ store, acceptVersions: ["2.1"] });
		pinned.broken.now = false;
		const replay = await pinned.handler.failedEvents.retry("transaction:t-pinned:successful");
		expect(replay).toMatchObject({ result: "refused", error: { reason: "signature" } });
		expect((replay.error as Error).message).toMatch(/Signing version 2\.0 is not accepted here/);
		expect(pinned.received).toEqual([]);
	});

	it("lists page by page in the order the events first failed; discard drops one without running it", async () => {
		const { handler, received, deliver } = setUp();
		for (const id of ["T-P1", "T-P2", "T-P3"]) await deliver(transactionIpn(id));
		const first = await handler.failedEvents.list({ limit: 2 });
		expect(first.events.map((event) => event.eventId)).toEqual([
			"transaction:t-p1:successful",
			"transaction:t-p2:successful",
		]);
		const second = await handler.failedEvents.list({ limit: 2, after: first.next });
		expect(second).toMatchObject({ events: [{ eventId: "transaction:t-p3:successful" }], next: undefined });
		expect(await handler.failedEvents.discard("transaction:t-p2:successful")).toBe(true);
		expect(await handler.failedEvents.discard("transaction:t-p2:successful")).toBe(false);
		expect((await handler.failedEvents.list()).events).toHaveLength(2);
		expect(received).toHaveLength(3);
		await expect(handler.failedEvents.list({ limit: 0 })).rejects.toThrow(/limit: must be an integer from 1 to 1000/);
		await expect(handler.failedEvents.list({ after: "x" })).rejects.toThrow(ConfigurationError);
		await expect(handler.failedEvents.get(5 as never)).rejects.toThrow(/eventId: must be a string/);
	});
});

/** The memory store on the driven clock, with some of its methods replaced. */
function storeWith(time: ReturnType<typeof drivenTime>, changes: Partial<Required<NotificationStore>> = {}) {
	const inner = time.store();
	const store: Required<NotificationStore> = {
		claim: (id, lease, token) => inner.claim(id, lease, token),
		confirm: (id, token) => inner.confirm(id, token),
		release: (id, token) => inner.release(id, token),
		recordFailure: (id, token, failure) => inner.recordFailure(id, token, failure),
		failedEvent: (id) => inner.failedEvent(id),
		listFailedEvents: (options) => inner.listFailedEvents(options),
		discardFailedEvent: (id) => inner.discardFailedEvent(id),
	};
	return Object.assign(store, changes);
}

describe("what failedEvents answers", () => {
	it("a record that no longer verifies is listed and read with its refusal; retry refuses it and reports it as a replay", async () => {
		const store = drivenTime().store();
		await setUp({ store }).deliver(transactionIpn("T-OLD"));
		const pinned = setUp({ store, acceptVersions: ["2.1"] });
		const eventId = "transaction:t-old:successful";
		const [listed] = (await pinned.handler.failedEvents.list()).events;
		expect(listed).toMatchObject({ eventId, event: undefined, attempts: 1 });
		expect(listed?.refusal).toBeInstanceOf(ReplayRefusedError);
		expect(listed?.refusal?.reason).toBe("signature");
		expect((await pinned.handler.failedEvents.get(eventId))?.refusal?.reason).toBe("signature");
		const replay = await pinned.handler.failedEvents.retry(eventId);
		expect(replay.result).toBe("refused");
		expect(pinned.errors).toEqual([[replay.error, { status: 401, eventId, replay: true }]]);
	});

	it("a failure of the handler's own verification (its signedString form throws) fails list and get; it is no refusal", async () => {
		const store = drivenTime().store();
		await setUp({ store }).deliver(transactionIpn("T-FORM"));
		const broken = new Error("form broken");
		const { handler } = setUp({
			store,
			signedString: () => {
				throw broken;
			},
		});
		await expect(handler.failedEvents.list()).rejects.toBe(broken);
		await expect(handler.failedEvents.get("transaction:t-form:successful")).rejects.toBe(broken);
	});

	it("a record that verifies is listed without a refusal, and a processed replay carries no error", async () => {
		const { handler, broken, deliver } = setUp();
		await deliver(transactionIpn("T-GOOD"));
		const eventId = "transaction:t-good:successful";
		const [listed] = (await handler.failedEvents.list()).events;
		expect(listed && "refusal" in listed).toBe(false);
		broken.now = false;
		expect(await handler.failedEvents.retry(eventId)).toStrictEqual({ eventId, result: "processed" });
	});

	it("a replay of an event a delivery processed while its record was read answers already_processed and runs nothing", async () => {
		const time = drivenTime();
		const reading = deferred();
		const store = storeWith(time);
		const read = store.failedEvent;
		store.failedEvent = async (id) => {
			const record = await read(id);
			await reading.promise;
			return record;
		};
		const { handler, broken, received, deliver } = setUp({ store });
		const body = transactionIpn("T-MEANWHILE");
		await deliver(body);
		broken.now = false;
		const replay = handler.failedEvents.retry("transaction:t-meanwhile:successful");
		await settle();
		expect((await deliver(body)).status).toBe(200);
		reading.resolve();
		expect(await replay).toEqual({ eventId: "transaction:t-meanwhile:successful", result: "already_processed" });
		expect(received).toHaveLength(2);
	});

	it("a replay whose claim the store fails answers failed with the store's error, and runs nothing", async () => {
		const time = drivenTime();
		const store = storeWith(time);
		const { handler, received, deliver } = setUp({ store });
		await deliver(transactionIpn("T-NOCLAIM"));
		const down = new Error("store down");
		store.claim = () => Promise.reject(down);
		const replay = await handler.failedEvents.retry("transaction:t-noclaim:successful");
		expect(replay).toStrictEqual({ eventId: "transaction:t-noclaim:successful", result: "failed", error: down });
		expect(received).toHaveLength(1);
	});

	it("a replay whose record the store cannot read answers failed with the store's error, reported as no refusal", async () => {
		const time = drivenTime();
		const store = storeWith(time);
		const { handler, errors, deliver } = setUp({ store });
		await deliver(transactionIpn("T-NOREAD"));
		const down = new Error("store down");
		store.failedEvent = () => Promise.reject(down);
		const replay = await handler.failedEvents.retry("transaction:t-noread:successful");
		expect(replay).toEqual({ eventId: "transaction:t-noread:successful", result: "failed", error: down });
		expect(errors.map(([, info]) => info.replay)).toEqual([undefined]);
	});

	it("a replay whose confirm the store fails answers processed with the store's error", async () => {
		const time = drivenTime();
		const store = storeWith(time);
		const { handler, broken, deliver } = setUp({ store });
		await deliver(transactionIpn("T-NOCONFIRM"));
		broken.now = false;
		const down = new Error("confirm lost");
		store.confirm = () => Promise.reject(down);
		const replay = await handler.failedEvents.retry("transaction:t-noconfirm:successful");
		expect(replay).toEqual({ eventId: "transaction:t-noconfirm:successful", result: "processed", error: down });
	});

	it("a replay whose callback times out answers failed with the timeout and the attempts counted", async () => {
		const gate = deferred();
		const slow = { now: false };
		const { handler, time, deliver } = setUp({
			callbackTimeoutMs: 1000,
			onTransaction: () => {
				if (!slow.now) throw new Error("down");
				return gate.promise;
			},
		});
		await deliver(transactionIpn("T-SLOWREPLAY"));
		slow.now = true;
		const replay = handler.failedEvents.retry("transaction:t-slowreplay:successful");
		await settle();
		time.clock.advance(1000);
		const answer = await replay;
		expect(answer).toMatchObject({ result: "failed", attempts: 2, error: { name: "TimeoutError" } });
		gate.resolve();
	});

	it("a failed replay whose failure cannot be recorded answers failed with the callback's error and no attempts", async () => {
		const time = drivenTime();
		const store = storeWith(time);
		const { handler, deliver } = setUp({ store });
		await deliver(transactionIpn("T-NORECORD"));
		store.recordFailure = () => Promise.reject(new Error("record lost"));
		const replay = await handler.failedEvents.retry("transaction:t-norecord:successful");
		expect(replay).toStrictEqual({
			eventId: "transaction:t-norecord:successful",
			result: "failed",
			error: expect.any(TypeError),
		});
	});

	it("a failed replay keeps the signed message: the next replay verifies it again and processes the event", async () => {
		const { handler, broken, received, deliver } = setUp();
		await deliver(transactionIpn("T-TWICE"));
		const eventId = "transaction:t-twice:successful";
		expect(await handler.failedEvents.retry(eventId)).toMatchObject({ result: "failed", attempts: 2 });
		broken.now = false;
		expect(await handler.failedEvents.retry(eventId)).toEqual({ eventId, result: "processed" });
		expect(received.map((transaction) => transaction.transactionId)).toEqual(["T-TWICE", "T-TWICE", "T-TWICE"]);
	});

	it("a store that does not answer within storeTimeoutMs: list, get, retry and discard name the step and the event", async () => {
		const never = () => new Promise<never>(() => {});
		const store = storeWith(drivenTime(), { failedEvent: never, listFailedEvents: never, discardFailedEvent: never });
		const { handler, time } = setUp({ store, storeTimeoutMs: 2000 });
		const late = (step: string, id: string) =>
			`The notification store did not answer the ${step} of ${id} within 2000 ms (storeTimeoutMs).`;
		const list = handler.failedEvents.list();
		const get = handler.failedEvents.get("transaction:t-1:successful");
		const retry = handler.failedEvents.retry("transaction:t-2:successful");
		const discard = handler.failedEvents.discard("transaction:t-3:successful");
		for (const pending of [list, get, discard]) pending.catch(() => {});
		await settle();
		time.clock.advance(2000);
		await expect(list).rejects.toThrow(late("list", "failed events"));
		await expect(get).rejects.toThrow(late("failed-event read", "transaction:t-1:successful"));
		expect(((await retry).error as Error).message).toBe(late("failed-event read", "transaction:t-2:successful"));
		await expect(discard).rejects.toThrow(late("failed-event discard", "transaction:t-3:successful"));
	});

	it("an instrumentation that fails to start a replay costs a warning naming its error's class, never the replay", async () => {
		const warnings: string[] = [];
		const { handler, broken, deliver } = setUp({ logger: { warn: (message: string) => warnings.push(message) } });
		await deliver(transactionIpn("T-WATCHED"));
		broken.now = false;
		const unsubscribe = replays.subscribe(() => {
			throw new RangeError("broken instrumentation");
		});
		try {
			const replay = await handler.failedEvents.retry("transaction:t-watched:successful");
			expect(replay).toEqual({ eventId: "transaction:t-watched:successful", result: "processed" });
		} finally {
			unsubscribe();
		}
		expect(warnings).toEqual(["An instrumentation failed to start; the replay goes on without it: RangeError"]);
	});

	it("a subscriber of the replay lifecycle sees the event id at start, before the record is read", async () => {
		const { handler, broken, deliver } = setUp();
		await deliver(transactionIpn("T-SEEN"));
		broken.now = false;
		const told: unknown[] = [];
		const unsubscribe = replays.subscribe((start) => {
			told.push(["start", { ...start }]);
			return {
				read: (event) => void told.push(["read", event.type]),
				steps: undefined,
				inCallback: (run) => run(),
				finished: (retry) => void told.push(["finished", retry.result]),
			};
		});
		try {
			await handler.failedEvents.retry("transaction:t-seen:successful");
			await handler.failedEvents.retry("transaction:t-never-failed:successful");
		} finally {
			unsubscribe();
		}
		expect(told).toEqual([
			["start", { eventId: "transaction:t-seen:successful" }],
			["read", "transaction"],
			["finished", "processed"],
			["start", { eventId: "transaction:t-never-failed:successful" }],
			["finished", "not_found"],
		]);
	});

	it("wrong arguments are refused with the argument, its rule and what it belongs to", async () => {
		const { handler } = setUp();
		await expect(handler.failedEvents.list({ limit: 0 })).rejects.toThrow(
			"Invalid failed-event list options: limit: must be an integer from 1 to 1000",
		);
		await expect(handler.failedEvents.list({ after: 5 as never })).rejects.toThrow(
			"Invalid failed-event list options: after: must be the next of a page before",
		);
		for (const call of [handler.failedEvents.get, handler.failedEvents.retry, handler.failedEvents.discard]) {
			await expect(call(5 as never)).rejects.toThrow("Invalid arguments: eventId: must be a string");
		}
	});
});

describe("stores that keep no failed events", () => {
	/** A store written before failed events existed: claim, confirm and release only. */
	function customStore(): NotificationStore {
		const inner = createMemoryStore();
		return {
			claim: (id, lease, token) => inner.claim(id, lease, token),
			confirm: (id, token) => inner.confirm(id, token),
			release: (id, token) => inner.release(id, token),
		};
	}

	it("deliveries work as before (a failure is released and the next delivery runs it); failedEvents says why it cannot", async () => {
		let runs = 0;
		const handler = createNotificationHandler({
			gatewayPublicKey,
			store: customStore(),
			onTransaction: () => {
				if (++runs === 1) throw new Error("once");
			},
			onRefund: () => {},
		});
		const body = transactionIpn("T-CUSTOM");
		expect((await handler(ipnRequest(body))).status).toBe(500);
		expect((await handler(ipnRequest(body))).status).toBe(200);
		expect(runs).toBe(2);
		await expect(handler.failedEvents.list()).rejects.toThrow(
			"Invalid notification handler options: store: keeps no failed events: the notification store has no " +
				"recordFailure, failedEvent, listFailedEvents and discardFailedEvent (createMemoryStore, createRedisStore " +
				"and createPostgresStore have them)",
		);
		await expect(handler.failedEvents.retry("x")).rejects.toThrow(ConfigurationError);
	});

	it("acknowledgeAfterAttempts needs a store that keeps failed events; a store with some of the methods is refused", () => {
		const base = { gatewayPublicKey, onTransaction: () => {}, onRefund: () => {} };
		expect(() => createNotificationHandler({ ...base, store: customStore(), acknowledgeAfterAttempts: 3 })).toThrow(
			/acknowledgeAfterAttempts: needs a store that keeps failed events/,
		);
		expect(() => createNotificationHandler({ ...base, acknowledgeAfterAttempts: 0 })).toThrow(
			/acknowledgeAfterAttempts: must be a positive integer/,
		);
		const partial = { ...customStore(), failedEvent: () => undefined };
		expect(() => createNotificationHandler({ ...base, store: partial })).toThrow(
			/store: must have all or none of recordFailure, failedEvent, listFailedEvents, discardFailedEvent/,
		);
	});
});
