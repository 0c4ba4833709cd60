import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore, createNotificationHandler, toNodeListener } from "../../src/index.js";
import { ControllableClock } from "../../src/sandbox/books/clock.js";
import { deferred, gatewayPublicKey, ipnRequest, listen, tick } from "./fixtures.js";

/** The handler's timers on a clock the test moves by hand. */
function drivenHandler(bodyTimeoutMs?: number) {
	const clock = new ControllableClock(Date.UTC(2030, 0, 1));
	const handler = createNotificationHandler({
		gatewayPublicKey,
		store: createMemoryStore({ now: () => clock.nowMs() }),
		startTimer: (onExpiry, delayMs) => clock.schedule(clock.nowMs() + delayMs, onExpiry),
		bodyTimeoutMs,
		onTransaction: () => {},
		onRefund: () => {},
	});
	return { clock, handler };
}

async function settle() {
	for (let i = 0; i < 10; i++) await tick();
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const close of cleanup.splice(0)) await close();
});

describe("a body that does not arrive in time", () => {
	it("toNodeListener: half a body, never the rest: 408 after bodyTimeoutMs (default 10 s), then close", async () => {
		const { clock, handler } = drivenHandler();
		const listener = toNodeListener(handler);
		const arrived = deferred<void>();
		const server = await listen((req, res) => {
			arrived.resolve();
			listener(req, res);
		});
		cleanup.push(() => server.close());
		const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
		let received = "";
		const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
		socket.on("data", (chunk) => {
			received += chunk.toString("latin1");
		});
		const head =
			"POST /ipn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n";
		socket.write(`${head}{"merchantId":`);
		await arrived.promise;
		clock.advance(9_999);
		await settle();
		expect(received).toBe("");
		clock.advance(1);
		await closed;
		const [responseHead = "", body = ""] = received.split("\r\n\r\n");
		expect(responseHead.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
		expect(responseHead.toLowerCase()).toContain("connection: close");
		expect(JSON.parse(body)).toEqual({ returnCode: "408", description: "The body did not arrive within 10000 ms." });
	});

	it("a Web Request whose body stream stalls gets 408 after bodyTimeoutMs, and the stream is cancelled", async () => {
		const { clock, handler } = drivenHandler(2_500);
		let cancelled = false;
		const stalled = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(new TextEncoder().encode('{"merchantId":'));
			},
			cancel() {
				cancelled = true;
			},
		});
		const pending = handler(ipnRequest(stalled, { duplex: "half" } as RequestInit));
		await settle();
		clock.advance(2_500);
		const response = await pending;
		expect(response.status).toBe(408);
		expect(response.headers.get("connection")).toBe("close");
		expect(await response.json()).toEqual({
			returnCode: "408",
			description: "The body did not arrive within 2500 ms.",
		});
		expect(cancelled).toBe(true);
	});
});
