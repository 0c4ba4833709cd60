import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { OutcomeUnknownError, TimeoutError } from "../../src/index.js";
import { checkoutParams, makeClient } from "./helpers.js";

/**
 * Gateways on real loopback sockets that answer so slowly no attempt can finish: one byte every 100 ms
 * of a body that is 100 kB long, or of the status line itself. No attempt finishes within its timeout,
 * however the machine is loaded, so the tests count the attempts each gateway saw and never time anything.
 */
interface DrippingGateway {
	url: string;
	/** Requests received so far. */
	attempts(): number;
	close(): Promise<void>;
}

const running: DrippingGateway[] = [];
afterEach(async () => {
	await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

/** Drips `bytes` into `write` one byte every 100 ms until `stop` is called. */
function drip(bytes: string, write: (byte: string) => void): () => void {
	let at = 0;
	const timer = setInterval(() => {
		if (at < bytes.length) write(bytes[at++] as string);
	}, 100);
	return () => clearInterval(timer);
}

/** Sends the status line and headers at once, then the body one byte at a time. */
async function drippingBody(): Promise<DrippingGateway> {
	let attempts = 0;
	const stops = new Set<() => void>();
	const server = createHttpServer((request: IncomingMessage, response: ServerResponse) => {
		attempts++;
		request.resume();
		request.on("end", () => {
			const body = " ".repeat(100_000);
			response.writeHead(200, { "content-type": "application/json", "content-length": body.length });
			response.flushHeaders();
			const stop = drip(body, (byte) => response.write(byte));
			stops.add(stop);
			response.on("close", () => {
				stop();
				stops.delete(stop);
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as { port: number };
	const gateway: DrippingGateway = {
		url: `http://127.0.0.1:${port}`,
		attempts: () => attempts,
		close: () => {
			for (const stop of stops) stop();
			server.closeAllConnections();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
	running.push(gateway);
	return gateway;
}

/** Reads each request, then drips the response from its first byte, the status line included. */
async function drippingStatusLine(): Promise<DrippingGateway> {
	let attempts = 0;
	const sockets = new Set<Socket>();
	const server = createTcpServer((socket) => {
		sockets.add(socket);
		let stop = () => {};
		socket.once("data", () => {
			attempts++;
			stop = drip(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${" ".repeat(100_000)}`, (byte) => {
				socket.write(byte);
			});
		});
		socket.on("error", () => {});
		socket.on("close", () => {
			stop();
			sockets.delete(socket);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as { port: number };
	const gateway: DrippingGateway = {
		url: `http://127.0.0.1:${port}`,
		attempts: () => attempts,
		close: () => {
			for (const socket of sockets) socket.destroy();
			return new Promise((resolve) => server.close(() => resolve()));
		},
	};
	running.push(gateway);
	return gateway;
}

const TRANSACTION_ID = "01JD5Z8Q4V7M1X2C3B4N5M6P7Q";
const client = (gateway: DrippingGateway, maxRetries: number) =>
	makeClient({ baseUrl: gateway.url, allowLoopbackHttp: true, timeoutMs: 300, maxRetries, retryBaseDelayMs: 1 });

describe.each([
	["its body", drippingBody],
	["its status line", drippingStatusLine],
])("a gateway that drips %s one byte every 100 ms", (_what, start) => {
	test("a query is retried on each timeout, within its retry limit, then TimeoutError", async () => {
		const gateway = await start();
		const retries: string[] = [];
		const error = await makeClient({
			baseUrl: gateway.url,
			allowLoopbackHttp: true,
			timeoutMs: 300,
			maxRetries: 2,
			retryBaseDelayMs: 1,
			hooks: { onRetry: (event) => void retries.push(event.reason) },
		})
			.transactions.retrieve(TRANSACTION_ID)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(TimeoutError);
		expect(gateway.attempts()).toBe(3);
		expect(retries).toEqual(["timeout", "timeout"]);
	});

	test("maxRetries 0: one attempt", async () => {
		const gateway = await start();
		await expect(client(gateway, 0).transactions.retrieve(TRANSACTION_ID)).rejects.toBeInstanceOf(TimeoutError);
		expect(gateway.attempts()).toBe(1);
	});

	test("a create is sent once: OutcomeUnknownError caused by the timeout", async () => {
		const gateway = await start();
		const error = await client(gateway, 2)
			.checkout.create(checkoutParams())
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as Error).cause).toBeInstanceOf(TimeoutError);
		expect(gateway.attempts()).toBe(1);
	});
});
