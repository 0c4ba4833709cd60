// Options at their limits, hooks that reject, and the one warning the package prints itself.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	ConfigurationError,
	createMemoryStore,
	createNotificationHandler,
	createReconciler,
	type ReconcilerGateway,
} from "../../src/index.js";
import { createPostgresStore } from "../../src/stores/postgres.js";
import { createRedisStore } from "../../src/stores/redis.js";
import { gatewayPublicKey, ipnRequest, tick, transactionIpn } from "./fixtures.js";

const MAX = 2_147_483_647;
const base = { gatewayPublicKey, onTransaction: () => {}, onRefund: () => {} };
/** Options only: the reconciler is never run here. */
const gateway: ReconcilerGateway = {
	signVersion: "2.0",
	transactions: { retrieve: () => Promise.reject(new Error("not called")) },
	refunds: { retrieve: () => Promise.reject(new Error("not called")) },
};
const reconcilerBase = { ...base, gateway, store: createMemoryStore() };

function issuesOf(make: () => unknown) {
	try {
		make();
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigurationError);
		return (error as ConfigurationError).issues;
	}
	throw new Error("accepted");
}

describe("every duration option stops at 2147483647 ms (what a timer honours)", () => {
	const rule = "must be an integer from 1 to 2147483647";
	const cases: [string, string, (ms: number) => unknown][] = [
		["handler", "leaseMs", (ms) => createNotificationHandler({ ...base, leaseMs: ms })],
		["handler", "callbackTimeoutMs", (ms) => createNotificationHandler({ ...base, callbackTimeoutMs: ms })],
		["handler", "bodyTimeoutMs", (ms) => createNotificationHandler({ ...base, bodyTimeoutMs: ms })],
		["handler", "storeTimeoutMs", (ms) => createNotificationHandler({ ...base, storeTimeoutMs: ms })],
		["reconciler", "leaseMs", (ms) => createReconciler({ ...reconcilerBase, leaseMs: ms })],
		["reconciler", "storeTimeoutMs", (ms) => createReconciler({ ...reconcilerBase, storeTimeoutMs: ms })],
		["memory store", "ttlMs", (ms) => createMemoryStore({ ttlMs: ms })],
		[
			"Redis store",
			"ttlMs",
			(ms) => createRedisStore({ client: { evalSha: async () => 1, eval: async () => 1 }, ttlMs: ms }),
		],
		[
			"PostgreSQL store",
			"ttlMs",
			(ms) => createPostgresStore({ pool: { query: async () => ({ rows: [], rowCount: 0 }) }, ttlMs: ms }),
		],
	];

	it.each(cases)(
		"%s %s: 2^31 (and 30 days) refused naming the option and the maximum; 2^31-1 taken",
		(_, field, make) => {
			for (const ms of [MAX + 1, 30 * 24 * 3600 * 1000, Number.MAX_SAFE_INTEGER, 0, 1.5]) {
				expect(issuesOf(() => make(ms))).toEqual([{ field, message: rule }]);
			}
			expect(() => make(MAX)).not.toThrow();
		},
	);

	it("the reconciler's rateLimitDelayMs: 0 to 2147483647", () => {
		const make = (ms: number) => createReconciler({ ...reconcilerBase, rateLimitDelayMs: ms });
		expect(issuesOf(() => make(MAX + 1))).toEqual([
			{ field: "rateLimitDelayMs", message: "must be an integer from 0 to 2147483647" },
		]);
		expect(() => make(0)).not.toThrow();
	});
});

describe("hooks that reject never reach the process", () => {
	const unhandled: unknown[] = [];
	const record = (reason: unknown) => void unhandled.push(reason);
	afterEach(() => {
		process.off("unhandledRejection", record);
		unhandled.length = 0;
	});

	it("an async onError that rejects, or returns a thenable that throws: the response is unchanged", async () => {
		process.on("unhandledRejection", record);
		const hooks = [
			async () => {
				throw new Error("logger down");
			},
			() => ({
				// biome-ignore lint/suspicious/noThenProperty: a thenable whose then throws, as a broken logger might return.
				then() {
					throw new Error("broken thenable");
				},
			}),
		];
		for (const onError of hooks) {
			const handler = createNotificationHandler({ ...base, onError });
			expect((await handler(ipnRequest("{"))).status).toBe(400);
			const failing = createNotificationHandler({
				...base,
				onError,
				onTransaction: async () => {
					throw new Error("callback failed");
				},
			});
			expect((await failing(ipnRequest(transactionIpn("T-hook")))).status).toBe(500);
		}
		// Unhandled rejections are reported once the microtasks have run; give them a few turns.
		for (let i = 0; i < 10; i++) await tick();
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(unhandled).toEqual([]);
	});
});

describe("the memory store in production warns once", () => {
	const savedEnv = process.env.NODE_ENV;
	afterEach(() => {
		process.env.NODE_ENV = savedEnv;
		vi.resetModules();
	});

	/** A fresh copy of the package (its warned-once flag unset), and the warnings it emits. */
	async function freshPackage() {
		vi.resetModules();
		const warnings: Error[] = [];
		const listener = (warning: Error) => void warnings.push(warning);
		process.on("warning", listener);
		const sdk = await import("../../src/index.js");
		const emitted = async () => {
			// process.emitWarning emits on the next tick.
			await tick();
			process.off("warning", listener);
			return warnings.filter((warning) => (warning as { code?: string }).code === "MERCHANT_GATEWAY_MEMORY_STORE");
		};
		return { sdk, emitted };
	}

	it("NODE_ENV=production: one warning for the first handler on a memory store, none for the next", async () => {
		process.env.NODE_ENV = "production";
		const { sdk, emitted } = await freshPackage();
		sdk.createNotificationHandler(base);
		sdk.createNotificationHandler({ ...base, store: sdk.createMemoryStore() });
		const warnings = await emitted();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]?.name).toBe("MerchantGatewayWarning");
		expect(warnings[0]?.message).toContain("in-memory store while NODE_ENV is production");
		expect(warnings[0]?.message).toContain("createRedisStore or createPostgresStore");
	});

	it("no warning outside production, nor for a shared store in production", async () => {
		process.env.NODE_ENV = "development";
		const first = await freshPackage();
		first.sdk.createNotificationHandler(base);
		expect(await first.emitted()).toEqual([]);
		process.env.NODE_ENV = "production";
		const second = await freshPackage();
		const shared = { claim: () => "claimed" as const, confirm: () => {}, release: () => {} };
		second.sdk.createNotificationHandler({ ...base, store: shared });
		expect(await second.emitted()).toEqual([]);
	});
});
