import { describe, expect, it } from "vitest";
import {
	ConfigurationError,
	createMemoryStore,
	createNotificationHandler,
	createReconciler,
	GatewayClient,
	type NotificationStore,
} from "../../src/index.js";
import { gatewayPublicKey, merchantPrivateKey } from "./fixtures.js";

function clock(start = 1_000_000) {
	let now = start;
	return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("createMemoryStore", () => {
	it("claims once, reports duplicates after confirm, and in-progress while leased", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now });
		expect(store.claim("e1", 1000)).toBe("claimed");
		expect(store.claim("e1", 1000)).toBe("in_progress");
		store.confirm("e1");
		expect(store.claim("e1", 1000)).toBe("processed");
	});

	it("release lets the next claim process again, but never forgets a confirmed event", () => {
		const store = createMemoryStore();
		expect(store.claim("e1", 1000)).toBe("claimed");
		store.release("e1");
		expect(store.claim("e1", 1000)).toBe("claimed");
		store.confirm("e1");
		store.release("e1");
		expect(store.claim("e1", 1000)).toBe("processed");
	});

	it("keeps at most maxEntries failed events, forgetting the one that failed first", async () => {
		const store = createMemoryStore({ maxEntries: 2 });
		for (const id of ["f1", "f2", "f3"]) store.recordFailure(id, undefined, { message: id, error: "e", release: true });
		const { records } = await store.listFailedEvents({ limit: 10 });
		expect(records.map((record) => record.eventId)).toEqual(["f2", "f3"]);
	});

	it("an expired lease (a crash mid-processing) can be claimed again", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now });
		expect(store.claim("e1", 1000)).toBe("claimed");
		time.advance(999);
		expect(store.claim("e1", 1000)).toBe("in_progress");
		time.advance(2);
		expect(store.claim("e1", 1000)).toBe("claimed");
	});

	it("forgets processed events after the TTL", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now, ttlMs: 5000 });
		store.claim("e1", 1000);
		store.confirm("e1");
		time.advance(4999);
		expect(store.claim("e1", 1000)).toBe("processed");
		time.advance(2);
		expect(store.claim("e1", 1000)).toBe("claimed");
	});

	it("keeps at most maxEntries, forgetting the oldest first", () => {
		const store = createMemoryStore({ maxEntries: 3 });
		for (const id of ["a", "b", "c", "d"]) {
			store.claim(id, 1000);
			store.confirm(id);
		}
		expect(store.claim("b", 1000)).toBe("processed");
		expect(store.claim("a", 1000)).toBe("claimed");
	});

	it("counts an event's age from its claim: a slow callback's event is still the oldest", () => {
		const store = createMemoryStore({ maxEntries: 2 });
		store.claim("slow", 1000);
		store.claim("fast", 1000);
		store.confirm("fast");
		store.confirm("slow");
		store.claim("new", 1000);
		expect(store.claim("fast", 1000)).toBe("processed");
		expect(store.claim("slow", 1000)).toBe("claimed");
	});

	it("refuses bad options", () => {
		expect(() => createMemoryStore({ ttlMs: 0 })).toThrow(ConfigurationError);
		expect(() => createMemoryStore({ maxEntries: 1.5 })).toThrow(ConfigurationError);
	});
});

describe("createMemoryStore, rule by rule", () => {
	const failure = (message: string, release = true) => ({ message, error: `failed: ${message}`, release });

	it("a lease ends exactly leaseMs after the claim, a processed event exactly ttlMs after its confirm", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now, ttlMs: 5000 });
		store.claim("e1", 1000);
		time.advance(1000);
		expect(store.claim("e1", 1000)).toBe("claimed");
		store.confirm("e1");
		time.advance(5000);
		expect(store.claim("e1", 1000)).toBe("claimed");
	});

	it("claiming an event whose lease ran out makes it the newest without forgetting another", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now, maxEntries: 2 });
		store.claim("b", 10_000, "b");
		store.claim("a", 1000, "a");
		time.advance(1000);
		expect(store.claim("a", 1000, "a2")).toBe("claimed");
		expect(store.claim("b", 10_000, "other")).toBe("in_progress");
	});

	it("bad options are refused naming the memory store's options", () => {
		expect(() => createMemoryStore({ maxEntries: 0 })).toThrow(/memory store options/);
	});

	it("the same token claiming again renews the lease from now", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now });
		expect(store.claim("e1", 1000, "a")).toBe("claimed");
		time.advance(600);
		expect(store.claim("e1", 1000, "a")).toBe("claimed");
		time.advance(600);
		expect(store.claim("e1", 1000, "b")).toBe("in_progress");
		time.advance(400);
		expect(store.claim("e1", 1000, "b")).toBe("claimed");
	});

	it("a renewed claim keeps its age: it is still the oldest when the store is full", () => {
		const store = createMemoryStore({ maxEntries: 2 });
		store.claim("first", 1000, "a");
		store.claim("second", 1000, "b");
		store.claim("first", 1000, "a");
		store.claim("third", 1000, "c");
		expect(store.claim("second", 1000, "d")).toBe("in_progress");
		expect(store.claim("first", 1000, "d")).toBe("claimed");
	});

	it("confirm answers confirmed only to the live claim's own token, and marks the event processed either way", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now });
		store.claim("e1", 1000, "a");
		expect(store.confirm("e1", "b")).toBe("lease_lost");
		expect(store.claim("e1", 1000, "c")).toBe("processed");
		store.claim("e2", 1000, "a");
		expect(store.confirm("e2", "a")).toBe("confirmed");
		expect(store.confirm("e2", "a")).toBe("lease_lost");
		store.claim("e3", 1000, "a");
		time.advance(1000);
		expect(store.confirm("e3", "a")).toBe("lease_lost");
		expect(store.confirm("never-claimed", "a")).toBe("lease_lost");
		expect(store.claim("never-claimed", 1000, "a")).toBe("processed");
	});

	it("release forgets only the caller's own unconfirmed claim", () => {
		const store = createMemoryStore();
		store.claim("e1", 1000, "a");
		store.release("e1", "b");
		expect(store.claim("e1", 1000, "b")).toBe("in_progress");
		store.release("e1", "a");
		expect(store.claim("e1", 1000, "b")).toBe("claimed");
	});

	it("a failure is recorded with its times; a later one counts, moves lastFailedAt and keeps firstFailedAt", async () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now });
		expect(store.recordFailure("e1", undefined, failure("m1"))).toBe(1);
		time.advance(250);
		expect(store.recordFailure("e1", undefined, failure("m2"))).toBe(2);
		expect(await store.failedEvent("e1")).toEqual({
			eventId: "e1",
			message: "m2",
			error: "failed: m2",
			attempts: 2,
			firstFailedAt: 1_000_000,
			lastFailedAt: 1_000_250,
		});
		time.advance(250);
		expect(store.recordFailure("e1", undefined, failure(""))).toBe(3);
		expect(await store.failedEvent("e1")).toMatchObject({ message: "m2", error: "failed: ", attempts: 3 });
		expect(await store.failedEvent("other")).toBeUndefined();
	});

	it("a failure releases the claim only when asked to, and only the caller's own", () => {
		const store = createMemoryStore();
		store.claim("kept", 1000, "a");
		store.recordFailure("kept", "a", failure("m", false));
		expect(store.claim("kept", 1000, "b")).toBe("in_progress");
		store.recordFailure("kept", "z", failure("m", true));
		expect(store.claim("kept", 1000, "b")).toBe("in_progress");
		store.recordFailure("kept", "a", failure("m", true));
		expect(store.claim("kept", 1000, "b")).toBe("claimed");
	});

	it("a processed event gets no record, until its done-marker has expired", () => {
		const time = clock();
		const store = createMemoryStore({ now: time.now, ttlMs: 5000 });
		store.claim("e1", 1000, "a");
		store.confirm("e1", "a");
		expect(store.recordFailure("e1", "a", failure("late"))).toBe(0);
		time.advance(5000);
		expect(store.recordFailure("e1", "a", failure("late"))).toBe(1);
	});

	it("a confirm clears the failed record, claimed or not", async () => {
		const store = createMemoryStore();
		store.recordFailure("e1", undefined, failure("m"));
		store.confirm("e1");
		expect(await store.failedEvent("e1")).toBeUndefined();
		store.claim("e2", 1000, "a");
		store.recordFailure("e2", "a", failure("m", false));
		store.confirm("e2", "a");
		expect(await store.failedEvent("e2")).toBeUndefined();
	});

	it("a record handed out is a copy: changing it changes nothing kept", async () => {
		const store = createMemoryStore();
		store.recordFailure("e1", undefined, failure("m"));
		const record = await store.failedEvent("e1");
		if (record === undefined) throw new Error("no record");
		record.attempts = 99;
		expect(Object.keys(record)).not.toContain("sequence");
		expect((await store.failedEvent("e1"))?.attempts).toBe(1);
		const [listed] = (await store.listFailedEvents({ limit: 1 })).records;
		expect(Object.keys(listed ?? {})).not.toContain("sequence");
	});

	it("keeps exactly maxEntries failed events", async () => {
		const store = createMemoryStore({ maxEntries: 2 });
		for (const id of ["f1", "f2"]) store.recordFailure(id, undefined, failure(id));
		expect((await store.listFailedEvents({ limit: 10 })).records.map((r) => r.eventId)).toEqual(["f1", "f2"]);
	});

	it("pages through failed events: a full page gives the cursor of its last record, the last page none", async () => {
		const store = createMemoryStore();
		for (const id of ["a", "b", "c"]) store.recordFailure(id, undefined, failure(id));
		const first = await store.listFailedEvents({ limit: 2 });
		expect(first.records.map((r) => r.eventId)).toEqual(["a", "b"]);
		expect(first.next).toBe("2");
		const second = await store.listFailedEvents({ limit: 2, after: first.next });
		expect(second).toMatchObject({ next: undefined });
		expect(second.records.map((r) => r.eventId)).toEqual(["c"]);
		const exact = await store.listFailedEvents({ limit: 3 });
		expect(exact.next).toBeUndefined();
		expect(exact.records).toHaveLength(3);
	});

	it.each(["-1", "1.5", "01", "abc", "", " 1", "9007199254740993"])("refuses the cursor %j", async (after) => {
		const store = createMemoryStore();
		await expect(async () => store.listFailedEvents({ limit: 1, after })).rejects.toThrow(ConfigurationError);
	});

	it("a cursor the store did not make is refused naming after, its rule and the list options", async () => {
		const store = createMemoryStore();
		const refusal = await Promise.resolve()
			.then(() => store.listFailedEvents({ limit: 1, after: "abc" }))
			.catch((error: unknown) => error);
		expect(refusal).toBeInstanceOf(ConfigurationError);
		expect((refusal as ConfigurationError).message).toBe(
			"Invalid failed-event list options: after: must be the next of a page this store returned",
		);
		expect((refusal as ConfigurationError).issues).toEqual([
			{ field: "after", message: "must be the next of a page this store returned" },
		]);
	});

	it("discarding a record answers whether there was one", async () => {
		const store = createMemoryStore();
		store.recordFailure("e1", undefined, failure("m"));
		expect(store.discardFailedEvent("e1")).toBe(true);
		expect(store.discardFailedEvent("e1")).toBe(false);
		expect(await store.failedEvent("e1")).toBeUndefined();
	});
});

describe("the store option", () => {
	const inner = createMemoryStore();
	const complete: NotificationStore = {
		claim: (id, lease, token) => inner.claim(id, lease, token),
		confirm: (id, token) => inner.confirm(id, token),
		release: (id, token) => inner.release(id, token),
	};
	const rule = "store: must have claim, confirm and release methods";

	it.each(["claim", "confirm", "release"] as const)(
		"a store without %s is refused by the handler and the reconciler, naming the store and its rule",
		(method) => {
			const store = { ...complete, [method]: undefined } as unknown as NotificationStore;
			const handler = { gatewayPublicKey, onTransaction: () => {}, onRefund: () => {} };
			expect(() => createNotificationHandler({ ...handler, store })).toThrow(rule);
			const gateway = new GatewayClient({
				baseUrl: "https://gateway.test",
				merchantId: "M-1001",
				privateKey: merchantPrivateKey,
				gatewayPublicKey,
			});
			expect(() => createReconciler({ ...handler, gateway, store })).toThrow(rule);
		},
	);
});
