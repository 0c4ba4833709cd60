import { describe, expect, it } from "vitest";
import { ConfigurationError, createMemoryStore } from "../../src/index.js";

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
