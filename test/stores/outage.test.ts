// The store goes away in the middle of a run: Redis or PostgreSQL is stopped while
// the sandbox delivers IPNs. Every delivery then gets a non-100 response and no
// callback runs without a claim; once the server is back (same port, same data), the
// gateway's retries are processed, each event once, and earlier events stay done.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NotificationStore } from "../../src/index.js";
import { createNotificationHandler, GatewayClient, NotificationStoreError, toNodeListener } from "../../src/index.js";
import { createPostgresStore } from "../../src/stores/postgres.js";
import { createRedisStore } from "../../src/stores/redis.js";
import { cardFields, MERCHANT_ID, type SandboxServer, startSandbox } from "../sandbox/helpers.js";
import type { RealServer } from "../support/real-servers.js";
import { postgresAvailability, redisAvailability, startPostgres, startRedis } from "../support/real-servers.js";
import { keys } from "../support/vectors.js";

type CardParams = Parameters<GatewayClient["card"]["charge"]>[0];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Setup {
	server: RealServer;
	store: NotificationStore;
	close(): Promise<void>;
}

function outageSuite(name: string, open: () => Promise<Setup>) {
	let setup: Setup;
	let sandbox: SandboxServer;
	let shop: { url: string; close: () => Promise<void> };
	const runs: string[] = [];
	const errors: unknown[] = [];
	let gateway: GatewayClient;

	beforeAll(async () => {
		setup = await open();
		// Retries every 100 ms for 30 s: the outage lasts as long as the test needs, then the retries get through.
		sandbox = await startSandbox({ ipn: { timeScale: 1, retryDelaysMs: Array(300).fill(100) } });
		const handler = createNotificationHandler({
			gatewayPublicKey: keys.gatewayPublic,
			store: setup.store,
			onTransaction: (_transaction, { eventId }) => void runs.push(eventId),
			onRefund: () => {},
			onError: (error) => void errors.push(error),
		});
		const server = createServer(toNodeListener(handler));
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		shop = {
			url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
			close: () =>
				new Promise<void>((resolve) => {
					server.closeAllConnections();
					server.close(() => resolve());
				}),
		};
		gateway = new GatewayClient({
			baseUrl: sandbox.url,
			merchantId: MERCHANT_ID,
			privateKey: keys.merchantPrivate,
			gatewayPublicKey: keys.gatewayPublic,
			allowLoopbackHttp: true,
		});
	});
	afterAll(async () => {
		await sandbox?.close();
		await shop?.close();
		await setup?.close();
	});

	let order = 0;
	const charge = async () => {
		const orderRef = `outage-${name}-${++order}`;
		const { merchantId: _m, paymentMethod: _p, ...params } = cardFields(shop.url, "4000000000000010", { orderRef });
		return `transaction:${(await gateway.card.charge(params as unknown as CardParams)).transactionId}:successful`;
	};
	const attemptsOf = (eventId: string) => {
		return sandbox.sandbox.deliveries().filter((d) => d.eventId === eventId && !d.duplicate);
	};

	it(`${name} stopped mid-run: non-100 and no callback; restarted: the retries are processed once`, async () => {
		const before = [await charge(), await charge(), await charge()];
		await sandbox.sandbox.whenIdle();
		expect(runs.sort()).toEqual([...before].sort());

		await setup.server.stop();
		const during = [await charge(), await charge(), await charge()];
		// Wait (as long as it takes) until each new event was refused twice.
		while (!during.every((eventId) => attemptsOf(eventId).length >= 2)) await sleep(20);
		const refused = during.flatMap(attemptsOf);
		for (const attempt of refused) {
			expect(attempt).toMatchObject({ outcome: "rejected", httpStatus: 500 });
			expect(attempt.returnCode).not.toBe("100");
		}
		expect(runs).toHaveLength(3);
		expect(errors.length).toBeGreaterThan(0);
		expect(errors.every((error) => error instanceof NotificationStoreError)).toBe(true);

		await setup.server.start();
		await sandbox.sandbox.whenIdle();
		expect(runs.slice(3).sort()).toEqual([...during].sort());
		for (const eventId of during) expect(attemptsOf(eventId).at(-1)?.outcome).toBe("acknowledged");
		// The events processed before the outage are still known as processed after it.
		const first = attemptsOf(before[0] as string)[0];
		sandbox.sandbox.redeliver(first?.deliveryId as string);
		await sandbox.sandbox.whenIdle();
		const again = sandbox.sandbox.deliveries().filter((d) => d.eventId === before[0] && d.duplicate);
		expect(again.at(-1)).toMatchObject({ outcome: "acknowledged", returnCode: "100" });
		expect(runs).toHaveLength(6);
		expect(new Set(runs).size).toBe(6);
	});
}

const redisOk = redisAvailability();
describe.skipIf(!redisOk.ok)(`Redis outage${redisOk.reason ? ` (${redisOk.reason})` : ""}`, () => {
	outageSuite("Redis", async () => {
		const server = await startRedis({ appendOnly: true });
		const client = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } });
		client.on("error", () => {});
		await client.connect();
		return {
			server,
			store: createRedisStore({ client }),
			close: async () => {
				client.destroy();
				await server.close();
			},
		};
	});
});

const postgresOk = postgresAvailability();
describe.skipIf(!postgresOk.ok)(`PostgreSQL outage${postgresOk.reason ? ` (${postgresOk.reason})` : ""}`, () => {
	outageSuite("PostgreSQL", async () => {
		const server = await startPostgres();
		const pool = new pg.Pool({ connectionString: server.connectionString, connectionTimeoutMillis: 2000 });
		pool.on("error", () => {});
		const store = createPostgresStore({ pool });
		await store.migrate();
		return {
			server,
			store,
			close: async () => {
				await pool.end();
				await server.close();
			},
		};
	});
});
