import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import type { FaultResponder } from "../../src/testing.js";
import { useGateway } from "./gateway.js";

/**
 * How long a query waits before each retry, on a driven clock: the sandbox is called in this process
 * (no socket), so fake timers move every clock the wait depends on, and nothing hinges on real time.
 */
const sandbox = useGateway();
const makeClient = sandbox.client;
const fixture = sandbox;
/** A transaction the sandbox charged: what the queries ask for. */
const ids = { transaction: "" };
beforeAll(async () => {
	ids.transaction = await sandbox.chargedTransaction();
});

describe("the wait before a retry, on a driven clock", () => {
	afterEach(() => {
		vi.useRealTimers();
		vi.restoreAllMocks();
	});

	/** Starts a query whose attempts get `statuses`, and returns when each attempt arrived on the clock. */
	async function arrivals(statuses: Array<[number, Record<string, string>?]>, retryBaseDelayMs: number) {
		sandbox.reset();
		const at: number[] = [];
		const refusals = statuses.map(([status, headers]) => () => {
			at.push(Date.now());
			return Response.json({ status: "error" }, { status, headers: headers ?? {} });
		});
		const success: FaultResponder = async (_request, tools) => {
			at.push(Date.now());
			return tools.sandboxResponse();
		};
		fixture.next("/v2/checkout/query", ...refusals, success);
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
		const start = Date.now();
		const client = makeClient({ retryBaseDelayMs, maxRetries: statuses.length, fetch: sandbox.inProcess });
		const done = client.transactions.retrieve(ids.transaction);
		while (fixture.count("/v2/checkout/query") <= statuses.length) await vi.advanceTimersByTimeAsync(10);
		await done;
		return at.map((time) => time - start);
	}
	/** The gaps between the attempts match `expected`, to the 10 ms the clock steps by. */
	const expectGaps = (times: number[], expected: number[]) => {
		const gaps = times.slice(1).map((time, i) => time - (times[i] ?? 0));
		expect(gaps).toHaveLength(expected.length);
		gaps.forEach((gap, i) => {
			expect(gap).toBeGreaterThanOrEqual((expected[i] ?? 0) - 10);
			expect(gap).toBeLessThanOrEqual((expected[i] ?? 0) + 10);
		});
	};

	test("the backoff doubles from retryBaseDelayMs, with full jitter, capped at 8 s", async () => {
		vi.spyOn(Math, "random").mockReturnValue(0.999999);
		expectGaps(await arrivals([[503], [503], [503]], 3000), [3000, 6000, 8000]);
		vi.spyOn(Math, "random").mockReturnValue(0.5);
		expectGaps(await arrivals([[503], [503]], 1000), [500, 1000]);
	});

	test("a Retry-After up to a minute replaces the backoff", async () => {
		vi.spyOn(Math, "random").mockReturnValue(0.999999);
		const retryAfter = (seconds: string): [number, Record<string, string>] => [429, { "retry-after": seconds }];
		expectGaps(await arrivals([retryAfter("0"), retryAfter("20"), [503]], 1000), [0, 20_000, 4000]);
	});
});
