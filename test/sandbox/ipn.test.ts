import { afterEach, describe, expect, test } from "vitest";
import { openMessage } from "../../src/signing/index.js";
import { keys } from "../support/vectors.js";
import { ack, cardFields, checkoutFields, postForm, signedPost, startReceiver, startSandbox } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startSandbox>>;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const close of cleanup.splice(0)) await close();
});

async function setup(respond: Parameters<typeof startReceiver>[0], options: Parameters<typeof startSandbox>[0] = {}) {
	const receiver = await startReceiver(respond);
	const server: Server = await startSandbox(options);
	cleanup.push(
		() => server.close(),
		() => receiver.close(),
	);
	const response = await signedPost(server.url, "/v2/card/api", cardFields(receiver.url, "4000000000000010"));
	const transactionId = String(openMessage(response.json, { publicKey: keys.gatewayPublic }).transactionId);
	return { receiver, server, transactionId };
}

const fastRetries = { retryDelaysMs: [10, 20, 30], timeScale: 1 };

describe("IPN delivery", () => {
	test("retries on the schedule until the merchant acknowledges with returnCode 100", async () => {
		const { receiver, server, transactionId } = await setup((n) => (n < 3 ? { status: 500, body: "oops" } : ack()), {
			ipn: fastRetries,
		});
		await server.sandbox.whenIdle();
		const attempts = server.sandbox.deliveries();
		expect(attempts.map((a) => a.outcome)).toEqual(["rejected", "rejected", "acknowledged"]);
		expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
		expect(attempts[0]).toMatchObject({
			eventId: `transaction:${transactionId}:successful`,
			httpStatus: 500,
			detail: "HTTP 500",
			kind: "transaction",
		});
		expect(attempts[0]?.nextAttemptAt).toEqual(expect.any(String));
		expect(attempts[2]?.nextAttemptAt).toBeUndefined();
		// Every attempt carries the same signed body, which verifies.
		expect(new Set(receiver.ipns.map((r) => r.body)).size).toBe(1);
		expect(receiver.ipns[0]?.contentType).toBe("application/json");
		expect(openMessage(receiver.ipns[0]?.body, { publicKey: keys.gatewayPublic }).status).toBe("successful");
	});

	test('a 200 without returnCode "100" is not an acknowledgement (numeric 100 included)', async () => {
		const responses = [
			{ status: 200, body: "OK" },
			{ status: 200, body: JSON.stringify({ returnCode: 100 }) },
			{ status: 200, body: JSON.stringify({ returnCode: "101" }) },
			ack(),
		];
		const { server } = await setup((n) => responses[n - 1] ?? ack(), { ipn: fastRetries });
		await server.sandbox.whenIdle();
		const attempts = server.sandbox.deliveries();
		expect(attempts.map((a) => a.outcome)).toEqual(["rejected", "rejected", "rejected", "acknowledged"]);
		expect(attempts[0]?.detail).toMatch(/no returnCode/);
		expect(attempts[1]?.detail).toMatch(/not the string "100"/);
		expect(attempts[2]?.returnCode).toBe("101");
	});

	test("gives up after the last retry of the schedule", async () => {
		const { server } = await setup(() => ({ status: 503, body: "" }), { ipn: fastRetries });
		await server.sandbox.whenIdle();
		const attempts = server.sandbox.deliveries();
		expect(attempts).toHaveLength(4);
		expect(attempts.every((a) => a.outcome === "rejected")).toBe(true);
		expect(attempts[3]?.nextAttemptAt).toBeUndefined();
	});

	test("D7 on a frozen clock: first retry 30 minutes after the start, then every 5 minutes, 10 in all", async () => {
		const start = Date.parse("2026-11-22T10:00:00Z");
		const failing = () => ({ status: 503, body: "" });
		const { server, transactionId } = await setup(failing, { now: start, ipn: { timeScale: 1 } });
		const sandbox = server.sandbox;
		const minutes = (n: number) => new Date(start + n * 60_000).toISOString();
		await sandbox.whenIdle(); // a retry waiting on a frozen clock does not hold whenIdle up
		const [first, ...more] = sandbox.deliveries();
		expect(first).toMatchObject({ attempt: 1, startedAt: minutes(0), nextAttemptAt: minutes(30) });
		expect(more).toEqual([]);
		sandbox.clock.advance(30 * 60_000 - 1);
		await sandbox.whenIdle();
		expect(sandbox.deliveries()).toHaveLength(1);
		sandbox.clock.advance(1);
		await sandbox.whenIdle();
		expect(sandbox.deliveries()[1]).toMatchObject({ attempt: 2, startedAt: minutes(30), nextAttemptAt: minutes(35) });
		for (let retry = 2; retry <= 10; retry++) {
			sandbox.clock.advance(5 * 60_000);
			await sandbox.whenIdle();
			expect(sandbox.deliveries().map((d) => d.startedAt)).toHaveLength(retry + 1);
		}
		const attempts = sandbox.deliveries();
		expect(attempts.map((d) => d.startedAt)).toEqual([0, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75].map(minutes));
		const eventId = `transaction:${transactionId}:successful`;
		expect(attempts.every((d) => d.eventId === eventId && d.outcome === "rejected")).toBe(true);
		expect(attempts[10]?.nextAttemptAt).toBeUndefined();
		sandbox.clock.advance(24 * 3_600_000);
		await sandbox.whenIdle();
		expect(sandbox.deliveries()).toHaveLength(11);
	});

	test("timeScale shrinks the schedule on the sandbox clock: 30 and 5 minutes become 1.8 and 0.3 s", async () => {
		const start = Date.parse("2026-11-22T10:00:00Z");
		const thirdTime = (n: number) => (n < 3 ? { status: 500, body: "" } : ack());
		const { server } = await setup(thirdTime, { now: start, ipn: { timeScale: 0.001 } });
		await server.sandbox.whenIdle();
		server.sandbox.clock.advance(1_800);
		await server.sandbox.whenIdle();
		server.sandbox.clock.advance(300);
		await server.sandbox.whenIdle();
		const attempts = server.sandbox.deliveries();
		expect(attempts.map((d) => [Date.parse(d.startedAt) - start, d.outcome])).toEqual([
			[0, "rejected"],
			[1_800, "rejected"],
			[2_100, "acknowledged"],
		]);
	});

	test("an IPN first sent long after the transaction started is retried 5 minutes after it failed", async () => {
		const start = Date.parse("2026-11-22T10:00:00Z");
		const receiver = await startReceiver(() => ({ status: 503, body: "" }));
		const server: Server = await startSandbox({ now: start, ipn: { timeScale: 1 } });
		cleanup.push(
			() => server.close(),
			() => receiver.close(),
		);
		const created = await signedPost(server.url, "/v2/checkout", checkoutFields(receiver.url));
		const link = new URL(String(openMessage(created.json, { publicKey: keys.gatewayPublic }).paymentLink));
		server.sandbox.clock.advance(2 * 3_600_000);
		await postForm(`${link.origin}${link.pathname}`, {
			token: link.searchParams.get("token") ?? "",
			action: "approve",
		});
		await server.sandbox.whenIdle();
		const [first] = server.sandbox.deliveries();
		const minutes = (n: number) => new Date(start + n * 60_000).toISOString();
		expect(first).toMatchObject({ startedAt: minutes(120), nextAttemptAt: minutes(125) });
	});

	test("on a real-time clock the scaled schedule runs by itself: 11 attempts, then it gives up", async () => {
		const { server } = await setup(() => ({ status: 503, body: "" }), { ipn: { timeScale: 0.0002 } });
		await server.sandbox.whenIdle();
		const attempts = server.sandbox.deliveries();
		expect(attempts.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
		expect(attempts[10]?.nextAttemptAt).toBeUndefined();
	});

	test("no response within the acknowledgement deadline is a timeout, then retried", async () => {
		const { server } = await setup((n) => (n === 1 ? "hang" : ack()), { ipn: { ...fastRetries, ackTimeoutMs: 1000 } });
		await server.sandbox.whenIdle();
		const attempts = server.sandbox.deliveries();
		expect(attempts.map((a) => a.outcome)).toEqual(["timeout", "acknowledged"]);
		expect(attempts[0]?.detail).toMatch(/1000 ms/);
	});

	test("an unreachable receiver is a network error, then retried", async () => {
		const receiver = await startReceiver();
		const dead = receiver.url;
		await receiver.close();
		const server = await startSandbox({ ipn: { retryDelaysMs: [5], timeScale: 1 } });
		cleanup.push(() => server.close());
		await signedPost(server.url, "/v2/card/api", cardFields(dead, "4000000000000010"));
		await server.sandbox.whenIdle();
		expect(server.sandbox.deliveries().map((a) => a.outcome)).toEqual(["network_error", "network_error"]);
	});

	test("forced duplicates: every acknowledged notification is sent again, marked duplicate", async () => {
		const { receiver, server } = await setup(() => ack(), { ipn: { duplicates: 2 } });
		await server.sandbox.whenIdle();
		const attempts = server.sandbox.deliveries();
		expect(attempts.map((a) => a.duplicate)).toEqual([false, true, true]);
		expect(receiver.ipns).toHaveLength(3);
		expect(new Set(receiver.ipns.map((r) => r.body)).size).toBe(1);
	});

	test("redeliver() re-sends one notification on demand", async () => {
		const { receiver, server } = await setup(() => ack());
		await server.sandbox.whenIdle();
		const [first] = server.sandbox.deliveries();
		server.sandbox.redeliver(first?.deliveryId ?? "");
		await server.sandbox.whenIdle();
		expect(receiver.ipns).toHaveLength(2);
		expect(server.sandbox.deliveries()[1]).toMatchObject({
			deliveryId: first?.deliveryId,
			attempt: 2,
			duplicate: true,
			outcome: "acknowledged",
		});
	});

	test("a 2.1 account's IPN arrives as payload, signVersion and signature", async () => {
		const { receiver, server } = await setup(() => ack(), { merchant: { signVersion: "2.1" } });
		await server.sandbox.whenIdle();
		const body = JSON.parse(receiver.ipns[0]?.body ?? "{}");
		expect(Object.keys(body).sort()).toEqual(["payload", "signVersion", "signature"]);
		expect(openMessage(body, { publicKey: keys.gatewayPublic, acceptVersions: ["2.1"] }).statusCode).toBe(6);
	});
});
