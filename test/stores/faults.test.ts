// The IPN handler on a real Redis and PostgreSQL that misbehave: a Redis frozen mid-claim (SIGSTOP),
// a PostgreSQL pool whose one connection is busy, a custom store on Redis SET NX that answers outside
// the contract, and ids PostgreSQL's text type and indexes refuse. The handler's timers follow a
// clock the test moves: no assertion depends on how fast the machine runs.
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
	createNotificationHandler,
	type NotificationHandlerOptions,
	type NotificationStore,
	NotificationStoreError,
} from "../../src/index.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import { createPostgresStore } from "../../src/stores/postgres.js";
import { createRedisStore } from "../../src/stores/redis.js";
import { gatewayPublicKey, ipnRequest, signedBody, tick, transactionFields } from "../notifications/fixtures.js";
import type { PostgresServer, RedisServer } from "../support/real-servers.js";
import { postgresAvailability, redisAvailability, startPostgres, startRedis } from "../support/real-servers.js";

const connectNodeRedis = (url: string) => createClient({ url }).connect();
const ipn = (transactionId: string) => ipnRequest(signedBody({ ...transactionFields(), transactionId }));
const eventOf = (transactionId: string) => `transaction:${transactionId.toLowerCase()}:successful`;

/** Lets pending promises and socket I/O run; no time is waited for. */
async function settle() {
	for (let i = 0; i < 20; i++) await tick();
}

function drivenHandler(store: NotificationStore, overrides: Partial<NotificationHandlerOptions> = {}) {
	const clock = new ControllableClock(Date.UTC(2030, 0, 1));
	const onTransaction = vi.fn(async () => {});
	const onError = vi.fn();
	const handler = createNotificationHandler({
		gatewayPublicKey,
		store,
		startTimer: (onExpiry, delayMs) => clock.schedule(clock.nowMs() + delayMs, onExpiry),
		onTransaction,
		onRefund: () => {},
		onError,
		...overrides,
	});
	/** Delivers `request`; `responded()` tells whether the response has come. */
	const deliver = (request: Request) => {
		let done = false;
		const response = handler(request).then((r) => {
			done = true;
			return r;
		});
		return { response, responded: () => done };
	};
	return { clock, deliver, onTransaction, onError };
}

const redisOk = redisAvailability();
describe.skipIf(!redisOk.ok)(
	`The handler on a misbehaving Redis${redisOk.reason ? ` (${redisOk.reason})` : ""}`,
	() => {
		let server: RedisServer;
		let redis: Awaited<ReturnType<typeof connectNodeRedis>>;
		beforeAll(async () => {
			server = await startRedis({ appendOnly: false });
			redis = await connectNodeRedis(server.url);
			redis.on("error", () => {});
		});
		afterAll(async () => {
			server?.thaw();
			redis?.destroy();
			await server?.close();
		});

		it("frozen mid-claim: 500 once storeTimeoutMs passes, no callback; thawed, the late claim is given back", async () => {
			const store = createRedisStore({ client: redis, keyPrefix: "frozen:" });
			const release = vi.spyOn(store, "release");
			const { clock, deliver, onTransaction, onError } = drivenHandler(store);
			const id = "01K0FROZEN0000000000000000";
			server.freeze();
			let first: ReturnType<typeof deliver>;
			try {
				first = deliver(ipn(id));
				await settle();
				expect(first.responded()).toBe(false);
				clock.advance(2000);
				await settle();
				// Answered while Redis is still frozen: the delivery is not held until it thaws.
				expect(first.responded()).toBe(true);
			} finally {
				server.thaw();
			}
			const response = await first.response;
			expect(response.status).toBe(500);
			expect(((await response.json()) as { returnCode: string }).returnCode).not.toBe("100");
			expect(onTransaction).not.toHaveBeenCalled();
			expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(NotificationStoreError);
			expect(onError.mock.calls[0]?.[0].message).toContain("did not answer the claim");
			// Thawed, Redis grants the claim it was sent; the handler gives it back, so the event is not
			// held for the lease's 60 s: the next delivery runs the callback.
			while (release.mock.results.length === 0) await settle();
			await release.mock.results[0]?.value;
			expect(release).toHaveBeenCalledWith(eventOf(id), expect.any(String));
			expect(await redis.exists(`frozen:${eventOf(id)}`)).toBe(0);
			const next = deliver(ipn(id));
			expect((await next.response).status).toBe(200);
			expect(onTransaction).toHaveBeenCalledTimes(1);
		});

		it("a custom store on SET NX (its raw replies, OK and null): every delivery refused, no callback run", async () => {
			const naive: NotificationStore = {
				claim: (eventId, leaseMs) =>
					redis.set(`naive:${eventId}`, "1", { condition: "NX", expiration: { type: "PX", value: leaseMs } }) as never,
				confirm: async (eventId) => void (await redis.set(`naive:${eventId}`, "done")),
				release: async (eventId) => void (await redis.del(`naive:${eventId}`)),
			};
			const { deliver, onTransaction, onError } = drivenHandler(naive);
			const id = "01K0SETNX00000000000000000";
			const statuses: number[] = [];
			for (let delivery = 0; delivery < 3; delivery++) statuses.push((await deliver(ipn(id)).response).status);
			expect(statuses).toEqual([500, 500, 500]);
			expect(onTransaction).not.toHaveBeenCalled();
			const messages = onError.mock.calls.map(([error]) => (error as Error).message);
			expect(messages[0]).toContain('answered "OK", not one of "claimed", "processed" or "in_progress"');
			expect(messages[1]).toContain("answered null");
			expect(onError.mock.calls.every(([error]) => error instanceof NotificationStoreError)).toBe(true);
		});
	},
);

const postgresOk = postgresAvailability();
const postgresSkip = postgresOk.reason ? ` (${postgresOk.reason})` : "";
describe.skipIf(!postgresOk.ok)(`The handler on a misbehaving PostgreSQL${postgresSkip}`, () => {
	let server: PostgresServer;
	let pool: pg.Pool;
	beforeAll(async () => {
		server = await startPostgres();
		// One connection, so the test can make it busy.
		pool = new pg.Pool({ connectionString: server.connectionString, max: 1 });
		pool.on("error", () => {});
		await createPostgresStore({ pool }).migrate();
	});
	afterAll(async () => {
		await pool?.end();
		await server?.close();
	});

	it("a pool with every connection busy: 500 once storeTimeoutMs passes, not when one frees up", async () => {
		const store = createPostgresStore({ pool });
		const release = vi.spyOn(store, "release");
		const { clock, deliver, onTransaction, onError } = drivenHandler(store, { storeTimeoutMs: 3000 });
		const id = "01K0EXHAUSTED0000000000000";
		const busy = await pool.connect();
		let first: ReturnType<typeof deliver>;
		try {
			first = deliver(ipn(id));
			await settle();
			clock.advance(2999);
			await settle();
			expect(first.responded()).toBe(false);
			clock.advance(1);
			await settle();
			expect(first.responded()).toBe(true);
		} finally {
			busy.release();
		}
		expect((await first.response).status).toBe(500);
		expect(onTransaction).not.toHaveBeenCalled();
		expect(onError.mock.calls[0]?.[0].message).toContain("within 3000 ms (storeTimeoutMs)");
		// The queued claim runs once the connection is free, is granted, and is given back.
		while (release.mock.results.length === 0) await settle();
		await release.mock.results[0]?.value;
		expect((await deliver(ipn(id)).response).status).toBe(200);
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});

	it("ids text and its index refuse (a NUL, 4,000 characters) are processed once, then duplicates", async () => {
		const { deliver, onTransaction, onError } = drivenHandler(createPostgresStore({ pool }));
		for (const id of ["01K0\u0000NUL000000000000000", `01K0${"L".repeat(3996)}`]) {
			const first = await deliver(ipn(id)).response;
			expect(first.status).toBe(200);
			const again = await deliver(ipn(id)).response;
			expect(await again.json()).toEqual({ returnCode: "100", description: "Already processed." });
		}
		expect(onTransaction).toHaveBeenCalledTimes(2);
		expect(onError).not.toHaveBeenCalled();
	});
});
