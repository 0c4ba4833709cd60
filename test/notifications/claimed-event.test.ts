// How the handler runs a claimed event when the store misbehaves: an answer outside the contract,
// a store that does not answer in time, and one event spelled in two letter cases. Time is a clock
// the test moves (the handler's startTimer), never waited for.
import { describe, expect, it, vi } from "vitest";
import {
	createMemoryStore,
	createNotificationHandler,
	type FailedEventStore,
	type NotificationHandlerOptions,
	type NotificationStore,
	NotificationStoreError,
} from "../../src/index.js";
import {
	createEventRunner,
	type RunStep,
	realTimer,
	runEvent,
	type StartTimer,
	type StepWatcher,
} from "../../src/notifications/claims/claimed-event.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import {
	deferred,
	gatewayPublicKey,
	ipnRequest,
	refundFields,
	signedBody,
	tick,
	transactionFields,
} from "./fixtures.js";

const ULID = "01K0SVJXA7RXJ0WWZ0CQB85R6A";

function drivenHandler(overrides: Partial<NotificationHandlerOptions> = {}) {
	const clock = new ControllableClock(Date.UTC(2030, 0, 1));
	const onTransaction = vi.fn(async () => {});
	const onError = vi.fn();
	const handler = createNotificationHandler({
		gatewayPublicKey,
		store: createMemoryStore({ now: () => clock.nowMs() }),
		startTimer: (onExpiry, delayMs) => clock.schedule(clock.nowMs() + delayMs, onExpiry),
		onTransaction,
		onRefund: () => {},
		onError,
		...overrides,
	});
	return { clock, handler, onTransaction, onError };
}

const ipn = (transactionId: string) => ipnRequest(signedBody({ ...transactionFields(), transactionId }));

async function settle() {
	for (let i = 0; i < 10; i++) await tick();
}

async function returnCode(response: Response): Promise<string> {
	return ((await response.json()) as { returnCode: string }).returnCode;
}

describe("a store's claim answer outside the contract fails closed", () => {
	it.each([
		["null (a raw SET NX reply on a duplicate)", null],
		['"OK" (a raw SET NX reply on a claim)', "OK"],
		["undefined", undefined],
		["true", true],
	])("%s: 500, a non-100 code, NotificationStoreError naming it, no callback", async (_name, answer) => {
		const store: NotificationStore = { claim: () => answer as never, confirm: () => {}, release: () => {} };
		const { handler, onTransaction, onError } = drivenHandler({ store });
		for (let delivery = 0; delivery < 3; delivery++) {
			const response = await handler(ipn(ULID));
			expect(response.status).toBe(500);
			expect(await returnCode(response)).not.toBe("100");
		}
		expect(onTransaction).not.toHaveBeenCalled();
		const [error, info] = onError.mock.calls[0] ?? [];
		expect(error).toBeInstanceOf(NotificationStoreError);
		expect((error as Error).message).toContain(`answered ${answer === "OK" ? '"OK"' : String(answer)}`);
		expect((error as Error).message).toMatch(
			/^The notification store's claim of transaction:01k0svjxa7rxj0wwz0cqb85r6a/,
		);
		expect(info).toEqual({ status: 500, eventId: "transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful" });
	});

	it("names a store made from a class by its class", async () => {
		class LegacyStore implements NotificationStore {
			claim() {
				return Promise.resolve(1 as never);
			}
			confirm() {}
			release() {}
		}
		const { handler, onError } = drivenHandler({ store: new LegacyStore() });
		expect((await handler(ipn(ULID))).status).toBe(500);
		expect(onError.mock.calls[0]?.[0].message).toMatch(/^The store LegacyStore's claim of .* answered 1, not one of/);
	});
});

describe("every store call has a time limit (storeTimeoutMs, default 2000 ms)", () => {
	/** A store whose every call waits for the test, and counts what it was asked. */
	function heldStore() {
		const base = createMemoryStore();
		const pending: { step: string; answer: () => void }[] = [];
		const hold =
			<A extends unknown[]>(step: string, call: (...args: A) => unknown) =>
			(...args: A) =>
				new Promise<never>((resolve) => pending.push({ step, answer: () => resolve(call(...args) as never) }));
		const store: NotificationStore = {
			claim: hold("claim", base.claim),
			confirm: hold("confirm", base.confirm),
			release: hold("release", base.release),
		};
		return { store, pending };
	}

	it("a claim unanswered after 2000 ms: 500 and no callback; a claim granted later is given back", async () => {
		const { store, pending } = heldStore();
		const { clock, handler, onTransaction, onError } = drivenHandler({ store });
		let responded = false;
		const response = handler(ipn(ULID)).then((r) => {
			responded = true;
			return r;
		});
		await settle();
		clock.advance(1999);
		await settle();
		expect(responded).toBe(false);
		clock.advance(1);
		await settle();
		expect(responded).toBe(true);
		expect((await response).status).toBe(500);
		expect(onTransaction).not.toHaveBeenCalled();
		expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(NotificationStoreError);
		expect(onError.mock.calls[0]?.[0].message).toContain("did not answer the claim");
		expect(onError.mock.calls[0]?.[0].message).toContain("within 2000 ms (storeTimeoutMs)");
		// The store grants the claim at last: the handler releases it at once, so the next delivery runs.
		pending.shift()?.answer();
		await settle();
		expect(pending.map((call) => call.step)).toEqual(["release"]);
		pending.shift()?.answer();
		await settle();
		const next = handler(ipn(ULID));
		await settle();
		pending.shift()?.answer(); // claim
		await settle();
		expect(onTransaction).toHaveBeenCalledTimes(1);
		pending.shift()?.answer(); // confirm
		expect((await next).status).toBe(200);
	});

	it("a confirm unanswered in time: the event is still acknowledged, and the time-out reported", async () => {
		const { store, pending } = heldStore();
		const { clock, handler, onTransaction, onError } = drivenHandler({ store, storeTimeoutMs: 500 });
		const response = handler(ipn(ULID));
		await settle();
		pending.shift()?.answer(); // claim
		await settle();
		expect(onTransaction).toHaveBeenCalledTimes(1);
		expect(pending.map((call) => call.step)).toEqual(["confirm"]);
		clock.advance(500);
		expect((await response).status).toBe(200);
		expect(onError).toHaveBeenCalledWith(expect.any(NotificationStoreError), {
			status: 200,
			eventId: "transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful",
		});
		expect(onError.mock.calls[0]?.[0].message).toContain("did not answer the confirm");
	});

	it("a release unanswered in time: 500 as for any failed callback, and the time-out reported", async () => {
		const { store, pending } = heldStore();
		const onTransaction = vi.fn(async () => {
			throw new Error("warehouse offline");
		});
		const { clock, handler, onError } = drivenHandler({ store, onTransaction });
		const response = handler(ipn(ULID));
		await settle();
		pending.shift()?.answer(); // claim
		await settle();
		expect(pending.map((call) => call.step)).toEqual(["release"]);
		clock.advance(2000);
		expect((await response).status).toBe(500);
		const messages = onError.mock.calls.map(([error]) => (error as Error).message);
		expect(messages).toEqual([expect.stringContaining("did not answer the release"), "warehouse offline"]);
	});

	it("a synchronous store (the memory store) starts no timer for its calls", async () => {
		const startTimer = vi.fn((_onExpiry: () => void, _delayMs: number) => () => {});
		const { handler } = drivenHandler({ startTimer, onTransaction: () => {} });
		expect((await handler(ipn(ULID))).status).toBe(200);
		// Only the body's (bodyTimeoutMs); a synchronous callback needs none either.
		expect(startTimer.mock.calls.map(([, delayMs]) => delayMs)).toEqual([10_000]);
	});
});

describe("event identity is the id in its canonical (lower) case", () => {
	it("an IPN with the id in lower case, then in upper case: one callback run, then a duplicate", async () => {
		const { handler, onTransaction } = drivenHandler();
		const first = await handler(ipn(ULID.toLowerCase()));
		const second = await handler(ipn(ULID));
		expect([first.status, second.status]).toEqual([200, 200]);
		expect(await second.json()).toEqual({ returnCode: "100", description: "Already processed." });
		expect(onTransaction).toHaveBeenCalledTimes(1);
		const eventId = "transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful";
		expect(onTransaction).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ eventId }));
	});

	it("a refund IPN with its id in upper case, then in lower case: one callback run, then a duplicate", async () => {
		const onRefund = vi.fn();
		const { handler } = drivenHandler({ onRefund });
		const refundId = "01KAFR0B2C4D6E8F0G2H4J6K8M";
		const refund = (id: string) => ipnRequest(signedBody({ ...refundFields(), refundId: id }));
		const first = await handler(refund(refundId));
		const second = await handler(refund(refundId.toLowerCase()));
		expect([first.status, second.status]).toEqual([200, 200]);
		expect(await second.json()).toEqual({ returnCode: "100", description: "Already processed." });
		expect(onRefund).toHaveBeenCalledTimes(1);
		const eventId = "refund:01kafr0b2c4d6e8f0g2h4j6k8m:refund_successful";
		expect(onRefund).toHaveBeenCalledWith(expect.objectContaining({ refundId }), expect.objectContaining({ eventId }));
	});

	it("two spellings delivered at once join one run", async () => {
		const gate = deferred();
		const onTransaction = vi.fn(() => gate.promise);
		const { handler } = drivenHandler({ onTransaction });
		const both = Promise.all([handler(ipn(ULID)), handler(ipn(ULID.toLowerCase()))]);
		await settle();
		gate.resolve();
		expect((await both).map((response) => response.status)).toEqual([200, 200]);
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});
});

describe("a failed run's record and its claim (the claim engine on its own)", () => {
	/** A memory store whose calls are counted, `recordFailure` answering as `answer` says. */
	function countingStore(answer?: () => unknown) {
		const base = createMemoryStore();
		const calls = { release: 0, recordFailure: 0 };
		const store: FailedEventStore = {
			...base,
			claim: base.claim,
			confirm: base.confirm,
			release: (eventId, token) => {
				calls.release++;
				return base.release(eventId, token);
			},
			recordFailure: (eventId, token, failure) => {
				calls.recordFailure++;
				return answer === undefined ? base.recordFailure(eventId, token, failure) : (answer() as number);
			},
		};
		return { store, base, calls };
	}
	const runnerOn = (store: NotificationStore, startTimer: StartTimer = realTimer) =>
		createEventRunner({ store, leaseMs: 60_000, callbackTimeoutMs: 25_000, storeTimeoutMs: 2_000, startTimer });
	const throwing = () => {
		throw new Error("ERP down");
	};

	it("a recorded failure releases the claim in the same step: no separate release", async () => {
		const { store, base, calls } = countingStore();
		const outcome = await runEvent(
			runnerOn(store),
			"e",
			throwing,
			() => {},
			() => "signed",
		);
		expect(outcome).toStrictEqual({ kind: "callback_failed", eventId: "e", error: expect.any(Error), attempts: 1 });
		expect(calls).toEqual({ release: 0, recordFailure: 1 });
		expect(base.claim("e", 60_000, "next")).toBe("claimed");
	});

	it.each([
		["a text", () => "2", '"2"'],
		["a negative count", () => -1, "-1"],
		["a fraction", () => 1.5, "1.5"],
		["nothing", () => undefined, "undefined"],
	])(
		"a failure record answered with %s is the store's failure, and the claim is released on its own",
		async (_, answer, shown) => {
			const { store, base, calls } = countingStore(answer);
			const outcome = await runEvent(
				runnerOn(store),
				"e",
				throwing,
				() => {},
				() => "signed",
			);
			expect(outcome).toStrictEqual({
				kind: "callback_failed",
				eventId: "e",
				error: expect.any(Error),
				problem: new NotificationStoreError(`The notification store's failure record of e answered ${shown}.`),
			});
			expect(calls.release).toBe(1);
			expect(base.claim("e", 60_000, "next")).toBe("claimed");
		},
	);

	it("a failure record that fails is the run's problem, and the claim is released on its own", async () => {
		const refused = new NotificationStoreError("READONLY");
		const { store, base, calls } = countingStore(() => Promise.reject(refused));
		const outcome = await runEvent(
			runnerOn(store),
			"e",
			throwing,
			() => {},
			() => "signed",
		);
		expect(outcome).toStrictEqual({
			kind: "callback_failed",
			eventId: "e",
			error: expect.any(Error),
			problem: refused,
		});
		expect(calls.release).toBe(1);
		expect(base.claim("e", 60_000, "next")).toBe("claimed");
	});

	it("a failure record answering 0 (processed meanwhile) counts no attempts and releases the claim on its own", async () => {
		const { store, calls } = countingStore(() => 0);
		const outcome = await runEvent(
			runnerOn(store),
			"e",
			throwing,
			() => {},
			() => "signed",
		);
		expect(outcome).toStrictEqual({ kind: "callback_failed", eventId: "e", error: expect.any(Error) });
		expect(calls.release).toBe(1);
	});

	it.each([
		["is given back and nothing is reported", undefined],
		["whose release fails is reported late as store_unavailable", new NotificationStoreError("connection reset")],
	])("a claim granted after its time limit %s", async (_, releaseFailure) => {
		const expiries: (() => void)[] = [];
		const startTimer: StartTimer = (onExpiry) => {
			expiries.push(onExpiry);
			return () => {};
		};
		const granted = deferred<"claimed">();
		const released = vi.fn(() => (releaseFailure ? Promise.reject(releaseFailure) : Promise.resolve()));
		const store: NotificationStore = { claim: () => granted.promise, confirm: () => {}, release: released };
		const late = vi.fn();
		const run = runEvent(runnerOn(store, startTimer), "e", () => {}, late);
		await settle();
		for (const expire of expiries) expire();
		expect(await run).toMatchObject({ kind: "store_unavailable", eventId: "e" });
		granted.resolve("claimed");
		await settle();
		expect(released).toHaveBeenCalledOnce();
		if (releaseFailure === undefined) expect(late).not.toHaveBeenCalled();
		else
			expect(late).toHaveBeenCalledExactlyOnceWith({ kind: "store_unavailable", eventId: "e", error: releaseFailure });
	});
});

describe("claim tokens", () => {
	it("are one prefix per process (its random bytes, two hex digits each) and a counter after it", async () => {
		let draw = 0;
		const random = vi.spyOn(globalThis.crypto, "getRandomValues").mockImplementation(<T>(bytes: T) => {
			(bytes as Uint8Array).fill(++draw);
			return bytes;
		});
		try {
			vi.resetModules();
			const { newClaimToken } = await import("../../src/notifications/claims/claimed-event.js");
			const tokens = [newClaimToken(), newClaimToken(), newClaimToken()];
			expect(tokens).toEqual([`${"01".repeat(12)}.1`, `${"01".repeat(12)}.2`, `${"01".repeat(12)}.3`]);
		} finally {
			random.mockRestore();
		}
	});
});

describe("what a store's failure says: the store, the step and the event", () => {
	/** A scheduler the test drives: the time limits still pending, each expired by hand. */
	function scheduler() {
		const pending = new Set<() => void>();
		const startTimer: StartTimer = (onExpiry) => {
			const entry = () => onExpiry();
			pending.add(entry);
			return () => pending.delete(entry);
		};
		const expireAll = () => {
			for (const expire of [...pending]) {
				pending.delete(expire);
				expire();
			}
		};
		return { pending, startTimer, expireAll };
	}
	const runnerOn = (store: NotificationStore, startTimer: StartTimer) =>
		createEventRunner({ store, leaseMs: 60_000, callbackTimeoutMs: 25_000, storeTimeoutMs: 2_000, startTimer });
	const throwing = () => {
		throw new Error("ERP down");
	};
	/** A store call that fails with nothing at all, at once or as a rejected promise. */
	const failsWithNothing = (how: "throws" | "rejects") => () => {
		if (how === "throws") throw undefined;
		return Promise.reject(undefined);
	};

	it.each(["throws", "rejects"] as const)(
		"a store call that fails with nothing (it %s) is a NotificationStoreError naming the store, the step and the event",
		async (how) => {
			const { startTimer } = scheduler();
			const base = createMemoryStore();
			const plain = { claim: base.claim, confirm: base.confirm, release: base.release };
			/** Runs `eventId` on the memory store with `step` failing with nothing, and `callback` as the callback. */
			const failing = (step: keyof typeof plain, eventId: string, callback: () => void = () => {}) =>
				runEvent(runnerOn({ ...plain, [step]: failsWithNothing(how) }, startTimer), eventId, callback, () => {});
			const claim = await failing("claim", "e");
			expect(claim).toStrictEqual({
				kind: "store_unavailable",
				eventId: "e",
				error: new NotificationStoreError("The notification store's claim of e failed."),
			});
			const confirm = await failing("confirm", "c");
			expect(confirm).toStrictEqual({
				kind: "processed",
				eventId: "c",
				problem: new NotificationStoreError("The notification store's confirm of c failed."),
			});
			const release = await failing("release", "r", throwing);
			expect(release).toStrictEqual({
				kind: "callback_failed",
				eventId: "r",
				error: new Error("ERP down"),
				problem: new NotificationStoreError("The notification store's release of r failed."),
			});
			const keeping: FailedEventStore = { ...base, recordFailure: failsWithNothing(how) };
			const recorded = await runEvent(
				runnerOn(keeping, startTimer),
				"f",
				throwing,
				() => {},
				() => "signed",
			);
			expect(recorded).toStrictEqual({
				kind: "callback_failed",
				eventId: "f",
				error: new Error("ERP down"),
				problem: new NotificationStoreError("The notification store's failure record of f failed."),
			});
		},
	);

	const calls = { claim: failsWithNothing("throws"), confirm: () => {}, release: () => {} };
	const [Unnamed] = [
		class {
			claim = calls.claim;
			confirm = calls.confirm;
			release = calls.release;
		},
	];
	class ErpStore {
		claim = calls.claim;
		confirm = calls.confirm;
		release = calls.release;
	}
	it.each([
		["an object literal: the notification store", () => ({ ...calls }), "The notification store"],
		["no prototype: the notification store", () => Object.assign(Object.create(null), calls), "The notification store"],
		["a class without a name: the notification store", () => new Unnamed(), "The notification store"],
		["a named class: the store and its class", () => new ErpStore(), "The store ErpStore"],
	])("a store's failures name it by its class, when it has a class name: %s", async (_, make, name) => {
		const outcome = await runEvent(
			runnerOn(make() as NotificationStore, scheduler().startTimer),
			"e",
			() => {},
			() => {},
		);
		expect(outcome).toMatchObject({ error: new NotificationStoreError(`${name}'s claim of e failed.`) });
	});

	it.each([
		["a long text, quoted and cut to its first 40 characters", "x".repeat(100), `"${"x".repeat(40)}"`],
		["an object, by its kind only", { token: "secret" }, "an object"],
		["a function, by its kind only", () => "secret", "a function"],
	])("a claim answered with %s: nothing runs, and the answer is shown", async (_, answer, shown) => {
		const store: NotificationStore = { claim: () => answer as never, confirm: () => {}, release: () => {} };
		const outcome = await runEvent(
			runnerOn(store, scheduler().startTimer),
			"e",
			() => {},
			() => {},
		);
		expect(outcome).toMatchObject({ kind: "store_unavailable", eventId: "e" });
		const message = (outcome as { error: Error }).error.message;
		const expected = 'one of "claimed", "processed" or "in_progress"; nothing was run.';
		const [before, after] = message.split(" answered ");
		expect(before).toBe("The notification store's claim of e");
		expect(after?.endsWith(`, not ${expected}`)).toBe(true);
		const shownPart = after?.slice(0, -`, not ${expected}`.length);
		expect(shownPart).toBe(shown);
	});
});

describe("the time limits a run starts", () => {
	const runnerOn = (store: NotificationStore, startTimer: StartTimer) =>
		createEventRunner({ store, leaseMs: 60_000, callbackTimeoutMs: 25_000, storeTimeoutMs: 2_000, startTimer });

	/** The memory store answering every call as a promise, so each call runs under a time limit. */
	function promisedStore(): NotificationStore {
		const base = createMemoryStore();
		return {
			claim: async (id, lease, token) => base.claim(id, lease, token),
			confirm: async (id, token) => base.confirm(id, token),
			release: async () => {
				throw new NotificationStoreError("connection reset");
			},
		};
	}

	it.each([
		["succeeds", async () => {}, "processed"],
		["fails", async () => Promise.reject(new Error("ERP down")), "callback_failed"],
	])("a run whose callback %s leaves no time limit scheduled once it ends", async (_, callback, kind) => {
		const pending = new Set<() => void>();
		const startTimer: StartTimer = (onExpiry) => {
			pending.add(onExpiry);
			return () => pending.delete(onExpiry);
		};
		const outcome = await runEvent(runnerOn(promisedStore(), startTimer), "e", callback, () => {});
		expect(outcome.kind).toBe(kind);
		expect(pending.size).toBe(0);
	});

	it("a real time limit does not keep the process alive, and cancelling it stops it", () => {
		vi.useFakeTimers();
		try {
			const scheduled = vi.spyOn(globalThis, "setTimeout");
			const onExpiry = vi.fn();
			const cancel = realTimer(onExpiry, 2_000);
			const timer = scheduled.mock.results[0]?.value as { hasRef(): boolean };
			expect(timer.hasRef()).toBe(false);
			cancel();
			expect(vi.getTimerCount()).toBe(0);
			vi.advanceTimersByTime(2_000);
			expect(onExpiry).not.toHaveBeenCalled();
		} finally {
			vi.useRealTimers();
		}
	});

	it("a confirm, release or failure record answered after its time limit is ignored, never thrown", async () => {
		const base = createMemoryStore();
		const answers: (() => void)[] = [];
		const held =
			<A extends unknown[]>(call: (...args: A) => unknown) =>
			(...args: A) =>
				new Promise<never>((resolve) => answers.push(() => resolve(call(...args) as never)));
		const store: FailedEventStore = {
			...base,
			confirm: held(base.confirm),
			release: held(base.release),
			recordFailure: held(base.recordFailure),
		};
		const expiries: (() => void)[] = [];
		const startTimer: StartTimer = (onExpiry) => {
			expiries.push(onExpiry);
			return () => {};
		};
		const runner = runnerOn(store, startTimer);
		const expireAll = () => {
			for (const expire of expiries.splice(0)) expire();
		};
		const unhandled = vi.fn();
		process.on("unhandledRejection", unhandled);
		try {
			const processed = runEvent(
				runner,
				"p",
				() => {},
				() => {},
			);
			await settle();
			expireAll();
			expect(await processed).toMatchObject({ kind: "processed", problem: expect.any(NotificationStoreError) });
			const failed = runEvent(
				runner,
				"f",
				() => {
					throw new Error("ERP down");
				},
				() => {},
				() => "signed",
			);
			await settle();
			expireAll(); // the failure record
			await settle();
			expireAll(); // the release on its own
			expect(await failed).toMatchObject({ kind: "callback_failed", problem: expect.any(NotificationStoreError) });
			for (const answer of answers.splice(0)) answer();
			await settle();
			expect(unhandled).not.toHaveBeenCalled();
		} finally {
			process.off("unhandledRejection", unhandled);
		}
	});
});

describe("the steps a run tells its instrumentation (what telemetry times and marks failed)", () => {
	const runnerOn = (store: NotificationStore) =>
		createEventRunner({
			store,
			leaseMs: 60_000,
			callbackTimeoutMs: 25_000,
			storeTimeoutMs: 2_000,
			startTimer: () => () => {},
		});
	/** A watcher that keeps each step with how it ended. */
	function stepsSeen() {
		const steps: [RunStep, { error?: unknown; answer?: unknown }][] = [];
		const watch: StepWatcher = (step) => (ended) => steps.push([step, ended]);
		return { steps, watch };
	}
	const connectionReset = new NotificationStoreError("connection reset");
	const erpDown = new Error("ERP down");

	it("a run that succeeds ends each step with no error", async () => {
		const { steps, watch } = stepsSeen();
		const base = createMemoryStore();
		await runEvent(
			runnerOn(base),
			"e",
			async () => {},
			() => {},
			undefined,
			watch,
		);
		expect(steps).toStrictEqual([
			["claim", { answer: "claimed" }],
			["callback", {}],
			["confirm", {}],
		]);
	});

	it("a callback that rejects ends its step with its error; a release that succeeds ends with none", async () => {
		const { steps, watch } = stepsSeen();
		const base = createMemoryStore();
		await runEvent(
			runnerOn(base),
			"e",
			async () => Promise.reject(erpDown),
			() => {},
			undefined,
			watch,
		);
		expect(steps).toStrictEqual([
			["claim", { answer: "claimed" }],
			["callback", { error: erpDown }],
			["release", {}],
		]);
	});

	it("a confirm or a release that fails ends its step with the store's error", async () => {
		const base = createMemoryStore();
		const store: NotificationStore = {
			claim: base.claim,
			confirm: () => Promise.reject(connectionReset),
			release: () => Promise.reject(connectionReset),
		};
		const confirmed = stepsSeen();
		await runEvent(
			runnerOn(store),
			"c",
			() => {},
			() => {},
			undefined,
			confirmed.watch,
		);
		expect(confirmed.steps.at(-1)).toStrictEqual(["confirm", { error: connectionReset }]);
		const released = stepsSeen();
		const throwing = () => {
			throw erpDown;
		};
		await runEvent(runnerOn(store), "r", throwing, () => {}, undefined, released.watch);
		expect(released.steps.at(-1)).toStrictEqual(["release", { error: connectionReset }]);
	});
});
