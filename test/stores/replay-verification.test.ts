// A replay trusts the store no further than the gateway's signature: on the memory store and on real
// Redis and PostgreSQL servers, a failed event's record is edited or forged the way anyone who can write
// to the store could (HSET, UPDATE, INSERT), and the replay must refuse it, report it and never run the
// callback; a record signed with a key still configured (a rotation's old key) replays, once.
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	createMemoryStore,
	createNotificationHandler,
	type FailedEventStore,
	type NotificationErrorInfo,
	ReplayRefusedError,
	type SignVersion,
	type Transaction,
} from "../../src/index.js";
import { createPostgresStore } from "../../src/stores/postgres.js";
import { createRedisStore } from "../../src/stores/redis.js";
import { deferred, ipnRequest, signedBody, tick, transactionFields } from "../notifications/fixtures.js";
import type { PostgresServer, RedisServer } from "../support/real-servers.js";
import { postgresAvailability, redisAvailability, startPostgres, startRedis } from "../support/real-servers.js";
import { keys } from "../support/vectors.js";

/** A store on a fresh namespace, and what someone with write access to it can do behind the SDK's back. */
interface Tamperable {
	store: FailedEventStore;
	/** Rewrites the message of the event's record in place. */
	edit(eventId: string, change: (message: string) => string): Promise<void>;
	/** Writes a record for `eventId` with `message`, as if a run had failed. */
	forge(eventId: string, message: string): Promise<void>;
}

/** Sets every `amount` member to 9999.99 and every `currency` to USD, at any depth, JSON text in strings too. */
function inflate(value: unknown): unknown {
	if (typeof value === "string") {
		try {
			const parsed: unknown = JSON.parse(value);
			if (typeof parsed === "object" && parsed !== null) return JSON.stringify(inflate(parsed));
		} catch {}
		return value;
	}
	if (Array.isArray(value)) return value.map(inflate);
	if (typeof value !== "object" || value === null) return value;
	const out: Record<string, unknown> = {};
	for (const [key, member] of Object.entries(value)) {
		out[key] = key === "amount" ? 9999.99 : key === "currency" ? "USD" : inflate(member);
	}
	return out;
}

const inflateMessage = (message: string) => JSON.stringify(inflate(JSON.parse(message)));

/** A transaction IPN signed with `privateKey` (the gateway's by default). */
function ipn(transactionId: string, version: SignVersion = "2.0", privateKey = keys.gatewayPrivate, amount = 10.5) {
	return signedBody({ ...transactionFields(), transactionId, amount }, version, privateKey);
}

function scenario(name: string, setup: () => Promise<Tamperable>) {
	describe(`replays verify what they replay: ${name}`, () => {
		/** A handler over `store` whose callback fails while `broken.now`; what reached it and onError is kept. */
		function handlerOn(
			store: FailedEventStore,
			gatewayPublicKey: string | string[] = keys.gatewayPublic,
			gate: Promise<void> = Promise.resolve(),
		) {
			const broken = { now: true };
			const received: Transaction[] = [];
			const errors: [unknown, NotificationErrorInfo][] = [];
			const handler = createNotificationHandler({
				gatewayPublicKey,
				store,
				onTransaction: async (transaction) => {
					received.push(transaction);
					if (broken.now) throw new Error("orders table locked");
					await gate;
				},
				onRefund: () => {},
				onError: (error, info) => void errors.push([error, info]),
			});
			const deliver = async (body: string) => (await handler(ipnRequest(body))).status;
			return { handler, broken, received, errors, deliver };
		}

		for (const version of ["2.0", "2.1"] as const) {
			it(`a record whose amount and currency were edited in the store (${version}) is refused and reported; the callback does not run`, async () => {
				const { store, edit } = await setup();
				const { handler, broken, received, errors, deliver } = handlerOn(store);
				const eventId = "transaction:t-edit:successful";
				expect(await deliver(ipn("T-EDIT", version))).toBe(500);
				await edit(eventId, inflateMessage);
				broken.now = false;
				received.length = 0;
				errors.length = 0;

				const replay = await handler.failedEvents.retry(eventId);
				expect(replay).toMatchObject({ eventId, result: "refused" });
				expect(replay.error).toBeInstanceOf(ReplayRefusedError);
				expect((replay.error as ReplayRefusedError).reason).toBe("signature");
				expect(received).toEqual([]);
				expect(errors).toEqual([[replay.error, { status: 401, eventId, replay: true }]]);
				// Listed with why it does not verify, never with the edited content as a verified event.
				const [listed] = (await handler.failedEvents.list()).events;
				expect(listed).toMatchObject({ eventId, event: undefined, refusal: { reason: "signature" } });
				expect(await handler.failedEvents.get(eventId)).toMatchObject({ event: undefined });
			});
		}

		it("forged records for a transaction the gateway never sent are refused: unsigned, signed by another key, or another event's signed message", async () => {
			const { store, forge } = await setup();
			const { handler, broken, received, errors, deliver } = handlerOn(store);
			broken.now = false;
			const fields = { ...transactionFields(), transactionId: "T-FORGED", amount: 5000 };
			// The event as a record of an earlier version held it, with nothing signed.
			const unsigned = JSON.stringify({ type: "transaction", signVersion: "2.0", transaction: fields });
			// The record's own form, signed with a key that is not the gateway's.
			const wrongKey = JSON.stringify({ signed: signedBody(fields, "2.0", keys.merchantPrivate) });
			// A genuine signed IPN, kept under another event's id.
			const genuine = ipn("T-GENUINE");
			const otherEvent = JSON.stringify({ signed: genuine });
			const cases = [
				["transaction:t-forged:successful", unsigned, "unsigned", 401],
				["transaction:t-forged-key:successful", wrongKey, "signature", 401],
				["transaction:t-forged-other:successful", otherEvent, "other_event", 400],
			] as const;
			for (const [eventId, message] of cases) await forge(eventId, message);

			for (const [eventId, , reason, status] of cases) {
				const replay = await handler.failedEvents.retry(eventId);
				expect(replay, eventId).toMatchObject({ eventId, result: "refused", error: { reason } });
				expect(errors.at(-1)).toEqual([replay.error, { status, eventId, replay: true }]);
				// No message names a value from the record.
				expect((replay.error as Error).message).not.toMatch(/5000|T-FORGED|t-forged/i);
			}
			expect(received).toEqual([]);
			const listed = (await handler.failedEvents.list()).events;
			expect(listed.map((event) => [event.eventId, event.event, event.refusal?.reason])).toEqual(
				cases.map(([eventId, , reason]) => [eventId, undefined, reason]),
			);
			// The genuine message still runs under its own id, as a delivery.
			expect(await deliver(genuine)).toBe(200);
			expect(received.map((transaction) => transaction.transactionId)).toEqual(["T-GENUINE"]);
		});

		it("a record signed with the old key replays on a handler configured with [new, old]; with [new] alone it is refused", async () => {
			const { store } = await setup();
			const before = handlerOn(store);
			const eventId = "transaction:t-rotate:successful";
			expect(await before.deliver(ipn("T-ROTATE", "2.1"))).toBe(500);

			// The gateway now signs with a new key (here: another pair of the vectors).
			const onlyNew = handlerOn(store, [keys.merchantPublic]);
			onlyNew.broken.now = false;
			expect(await onlyNew.handler.failedEvents.retry(eventId)).toMatchObject({
				result: "refused",
				error: { reason: "signature" },
			});
			expect(onlyNew.received).toEqual([]);

			const rotating = handlerOn(store, [keys.merchantPublic, keys.gatewayPublic]);
			rotating.broken.now = false;
			expect((await rotating.handler.failedEvents.get(eventId))?.event).toMatchObject({ eventId });
			expect(await rotating.handler.failedEvents.retry(eventId)).toEqual({ eventId, result: "processed" });
			expect(rotating.received).toMatchObject([{ transactionId: "T-ROTATE", amount: 10.5, currency: "EUR" }]);
		});

		it("a valid record replays once: a second replay while it runs, and one after, run nothing", async () => {
			const { store } = await setup();
			const gate = deferred();
			const { handler, broken, received, deliver } = handlerOn(store, keys.gatewayPublic, gate.promise);
			const eventId = "transaction:t-valid:successful";
			const body = ipn("T-VALID", "2.0", keys.gatewayPrivate, 42.1);
			expect(await deliver(body)).toBe(500);
			broken.now = false;
			received.length = 0;
			const first = handler.failedEvents.retry(eventId);
			while (received.length === 0) await tick();
			expect(await handler.failedEvents.retry(eventId)).toEqual({ eventId, result: "in_progress" });
			gate.resolve();
			expect(await first).toEqual({ eventId, result: "processed" });
			expect(await handler.failedEvents.retry(eventId)).toEqual({ eventId, result: "not_found" });
			expect(received).toMatchObject([{ transactionId: "T-VALID", amount: 42.1, currency: "EUR" }]);
			expect(await deliver(body)).toBe(200);
			expect(received).toHaveLength(1);
		});
	});
}

let sequence = 0;
const connectNodeRedis = (url: string) => createClient({ url }).connect();

scenario("memory", async () => {
	const store = createMemoryStore();
	return {
		store,
		async edit(eventId, change) {
			const record = await store.failedEvent(eventId);
			if (!record) throw new Error(`no record ${eventId}`);
			const message = change(record.message);
			await store.recordFailure(eventId, undefined, { message, error: record.error, release: false });
		},
		async forge(eventId, message) {
			await store.recordFailure(eventId, undefined, { message, error: "Error: x", release: true });
		},
	};
});

const redisOk = redisAvailability();
describe.skipIf(!redisOk.ok)(`Redis${redisOk.reason ? ` (${redisOk.reason})` : ""}`, () => {
	let server: RedisServer;
	let client: Awaited<ReturnType<typeof connectNodeRedis>>;
	beforeAll(async () => {
		server = await startRedis({ appendOnly: false });
		client = await connectNodeRedis(server.url);
	});
	afterAll(async () => {
		await client?.close();
		await server?.close();
	});
	scenario("Redis", async () => {
		const keyPrefix = `replay${++sequence}:event:`;
		const records = `failed:${keyPrefix}records`;
		return {
			store: createRedisStore({ client, keyPrefix }),
			async edit(eventId, change) {
				const stored = JSON.parse((await client.hGet(records, eventId)) ?? "null");
				stored.message = change(stored.message);
				await client.hSet(records, eventId, JSON.stringify(stored));
			},
			async forge(eventId, message) {
				const now = Date.now();
				const record = { message, error: "Error: x", attempts: 1, firstFailedAt: now, lastFailedAt: now };
				await client.hSet(records, eventId, JSON.stringify(record));
				await client.zAdd(`failed:${keyPrefix}index`, { score: ++sequence, value: eventId });
			},
		};
	});
});

const postgresOk = postgresAvailability();
describe.skipIf(!postgresOk.ok)(`PostgreSQL${postgresOk.reason ? ` (${postgresOk.reason})` : ""}`, () => {
	let server: PostgresServer;
	let pool: pg.Pool;
	beforeAll(async () => {
		server = await startPostgres();
		pool = new pg.Pool({ connectionString: server.connectionString, max: 4 });
	});
	afterAll(async () => {
		await pool?.end();
		await server?.close();
	});
	scenario("PostgreSQL", async () => {
		const table = `replay_${++sequence}`;
		const store = createPostgresStore({ pool, table });
		await store.migrate();
		return {
			store,
			async edit(eventId, change) {
				const { rows } = await pool.query(`SELECT failed_message FROM ${table} WHERE event_id = $1`, [eventId]);
				const message = change((rows[0] as { failed_message: string }).failed_message);
				await pool.query(`UPDATE ${table} SET failed_message = $1 WHERE event_id = $2`, [message, eventId]);
			},
			async forge(eventId, message) {
				await pool.query(
					`INSERT INTO ${table} (event_key, event_id, state, token, expires_at, failed_event_id, failed_attempts,
  failed_message, failed_error, first_failed_at, last_failed_at)
VALUES (sha256(convert_to($1, 'UTF8')), $1, 'processing', '', now(), convert_to($1, 'UTF8'), 1, $2, 'Error: x',
  clock_timestamp(), clock_timestamp())`,
					[eventId, message],
				);
			},
		};
	});
});
