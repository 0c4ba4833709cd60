import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import express from "express";
import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	ConfigurationError,
	createNotificationHandler,
	type NotificationHandler,
	type NotificationHandlerOptions,
	toNodeListener,
} from "../../src/index.js";
import { vector } from "../support/vectors.js";
import {
	gatewayPublicKey,
	listen,
	refundFields,
	signedBody,
	tick,
	transactionFields,
	transactionIpn,
} from "./fixtures.js";

const run = promisify(execFile);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
	for (const close of closers.splice(0)) await close();
});

function callbacks(overrides: Partial<NotificationHandlerOptions> = {}) {
	const onTransaction = vi.fn(async (_transaction: unknown, _context: unknown) => {});
	const onRefund = vi.fn(async () => {});
	return { onTransaction, onRefund, options: { gatewayPublicKey, onTransaction, onRefund, ...overrides } };
}

async function serve(overrides: Partial<NotificationHandlerOptions> = {}) {
	const spies = callbacks(overrides);
	const server = await listen(toNodeListener(createNotificationHandler(spies.options)));
	closers.push(server.close);
	return { ...spies, url: `${server.url}/ipn` };
}

async function post(url: string, body: string, type = "application/json") {
	const response = await fetch(url, { method: "POST", headers: { "content-type": type }, body });
	return { status: response.status, body: (await response.json()) as { returnCode: string } };
}

/** Writes raw HTTP to the server and resolves with the status line of the response, without finishing the body. */
function rawExchange(url: string, head: string, body: Buffer): Promise<string> {
	const { port } = new URL(url);
	return new Promise((resolve, reject) => {
		const socket = connect(Number(port), "127.0.0.1");
		let received = "";
		socket.on("data", (data) => {
			received += data.toString("latin1");
			if (received.includes("\r\n\r\n")) {
				socket.destroy();
				resolve(received.split("\r\n")[0] as string);
			}
		});
		socket.on("error", reject);
		socket.write(head);
		socket.write(body);
	});
}

describe("toNodeListener on node:http, driven by fetch", () => {
	it("processes 2.0 and 2.1 transaction and refund IPNs", async () => {
		const { url, onTransaction, onRefund } = await serve();
		expect(await post(url, vector("transaction-ipn-2.0").message as string)).toMatchObject({
			status: 200,
			body: { returnCode: "100" },
		});
		expect(await post(url, transactionIpn("T-21", "2.1"))).toMatchObject({ status: 200, body: { returnCode: "100" } });
		expect(await post(url, vector("refund-ipn-2.0").message as string)).toMatchObject({ status: 200 });
		expect(await post(url, signedBody({ ...refundFields(), status: "refund_failed" }, "2.1"))).toMatchObject({
			status: 200,
		});
		expect(onTransaction).toHaveBeenCalledTimes(2);
		expect(onRefund).toHaveBeenCalledTimes(2);
		expect(onTransaction.mock.calls[0]).toEqual([
			vector("transaction-ipn-2.0").input,
			expect.objectContaining({ signVersion: "2.0" }),
		]);
	});

	it("the same event delivered 50 times, 10 at once: one callback call, 50 acknowledgements", async () => {
		const spy = vi.fn(async () => {
			// Long enough that each wave of 10 overlaps the first delivery.
			await new Promise((resolve) => setTimeout(resolve, 20));
		});
		const { url } = await serve({ onTransaction: spy });
		const body = transactionIpn("T-http-dup", "2.1");
		const codes: string[] = [];
		for (let wave = 0; wave < 5; wave++) {
			const responses = await Promise.all(Array.from({ length: 10 }, () => post(url, body)));
			codes.push(...responses.map((a) => `${a.status} ${a.body.returnCode}`));
		}
		expect(codes).toEqual(Array(50).fill("200 100"));
		expect(spy).toHaveBeenCalledTimes(1);
	});

	it("a callback failing once: 500, then the next delivery processes it", async () => {
		let calls = 0;
		const { url } = await serve({
			onTransaction: async () => {
				if (++calls === 1) throw new Error("transient");
			},
		});
		const body = transactionIpn("T-http-retry");
		expect(await post(url, body)).toMatchObject({ status: 500, body: { returnCode: "500" } });
		expect(await post(url, body)).toMatchObject({ status: 200, body: { returnCode: "100" } });
		expect(calls).toBe(2);
	});

	it("refuses forgeries (401), bad JSON (400), wrong method (405) and content type (415)", async () => {
		const { url, onTransaction } = await serve();
		const flat = JSON.parse(signedBody(transactionFields())) as Record<string, unknown>;
		expect((await post(url, JSON.stringify({ ...flat, amount: 1 }))).status).toBe(401);
		expect((await post(url, "{not json")).status).toBe(400);
		expect((await post(url, signedBody(transactionFields()), "text/plain")).status).toBe(415);
		const get = await fetch(url);
		expect(get.status).toBe(405);
		expect(get.headers.get("allow")).toBe("POST");
		expect(onTransaction).not.toHaveBeenCalled();
	});

	it("does not let __proto__ keys in the HTTP body pollute prototypes", async () => {
		const { url } = await serve();
		const body = signedBody(transactionFields(), "2.1").replace("{", '{"__proto__":{"polluted":true},');
		expect((await post(url, body)).status).toBe(200);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("413 for a declared Content-Length over the limit, responded to before the body is sent", async () => {
		const { url, onTransaction } = await serve();
		const head =
			"POST /ipn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
			"Content-Length: 10000000\r\n\r\n";
		expect(await rawExchange(url, head, Buffer.alloc(1024, 32))).toBe("HTTP/1.1 413 Payload Too Large");
		expect(onTransaction).not.toHaveBeenCalled();
	});

	it("413 for a chunked body past the limit, responded to while the client is still sending", async () => {
		const { url } = await serve();
		const head =
			"POST /ipn HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
			"Transfer-Encoding: chunked\r\n\r\n";
		const chunk = Buffer.concat([Buffer.from("2000\r\n"), Buffer.alloc(0x2000, 32), Buffer.from("\r\n")]);
		// 80 KiB of chunks and no final chunk: the response can only come from stopping at the limit.
		expect(await rawExchange(url, head, Buffer.concat(Array(10).fill(chunk)))).toBe("HTTP/1.1 413 Payload Too Large");
	});

	it("hands each request to the handler's handle method, an ordinary call", async () => {
		const { options, onTransaction } = callbacks();
		const handler = createNotificationHandler(options);
		const server = await listen(toNodeListener(handler));
		closers.push(server.close);
		const handle = vi.spyOn(handler, "handle");
		expect(await post(`${server.url}/ipn`, transactionIpn("T-handle"))).toMatchObject({ status: 200 });
		expect(handle).toHaveBeenCalledTimes(1);
		expect(handle.mock.calls[0]?.[0]).toMatchObject({ method: "POST", contentType: "application/json" });
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});

	it("handle responds to a delivery described without any server", async () => {
		const { options, onTransaction } = callbacks();
		const handler = createNotificationHandler(options);
		const body = transactionIpn("T-neutral", "2.1");
		const delivery = {
			method: "POST",
			contentType: "application/json",
			contentLength: undefined,
			readBody: async () => body,
		};
		expect(await handler.handle(delivery)).toMatchObject({
			status: 200,
			body: expect.stringContaining('"returnCode":"100"'),
		});
		const tooLarge = await handler.handle({ ...delivery, contentLength: "70000" });
		expect(tooLarge).toMatchObject({ status: 413, closeConnection: true });
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});

	it("refuses a handler it did not make", () => {
		expect(() => toNodeListener((async () => new Response()) as unknown as NotificationHandler)).toThrow(
			ConfigurationError,
		);
	});
});

describe("toNodeListener driven by curl", () => {
	async function curl(args: string[]) {
		const { stdout } = await run("curl", ["-s", "-w", "\n%{http_code}", ...args]);
		const lines = stdout.split("\n");
		return { status: Number(lines.at(-1)), body: lines.slice(0, -1).join("\n") };
	}

	it("accepts a signed IPN posted with curl, 2.0 and 2.1, and refuses bad ones", async () => {
		const { url, onTransaction } = await serve();
		const dir = tmpdir();
		const files = {
			v20: join(dir, `ipn-20-${process.pid}.json`),
			v21: join(dir, `ipn-21-${process.pid}.json`),
			forged: join(dir, `ipn-forged-${process.pid}.json`),
			big: join(dir, `ipn-big-${process.pid}.json`),
		};
		writeFileSync(files.v20, transactionIpn("T-curl-20"));
		writeFileSync(files.v21, transactionIpn("T-curl-21", "2.1"));
		writeFileSync(files.forged, transactionIpn("T-curl-20").replace('"amount":10.5', '"amount":0.5'));
		writeFileSync(files.big, `{"pad":"${"x".repeat(200_000)}"}`);
		const json = ["-H", "content-type: application/json"];
		const ok20 = await curl([...json, "--data-binary", `@${files.v20}`, url]);
		expect(ok20.status).toBe(200);
		expect(JSON.parse(ok20.body)).toMatchObject({ returnCode: "100" });
		expect((await curl([...json, "--data-binary", `@${files.v21}`, url])).status).toBe(200);
		expect((await curl([...json, "--data-binary", `@${files.forged}`, url])).status).toBe(401);
		expect((await curl([...json, "--data-binary", `@${files.big}`, url])).status).toBe(413);
		expect((await curl(["-H", "content-type: text/plain", "--data-binary", `@${files.v20}`, url])).status).toBe(415);
		expect((await curl([...json, "--data-binary", "", url])).status).toBe(400);
		expect((await curl([url])).status).toBe(405);
		expect(onTransaction).toHaveBeenCalledTimes(2);
	});
});

describe("behind frameworks", () => {
	it("Express with express.json() in front of the route verifies 2.0 and 2.1", async () => {
		const { options, onTransaction } = callbacks();
		const app = express();
		app.use(express.json());
		app.post("/ipn", toNodeListener(createNotificationHandler(options)));
		const server = await listen(app);
		closers.push(server.close);
		const url = `${server.url}/ipn`;
		// Surrounding spaces, escaped slashes and non-ASCII text: a parser's re-serialization would change all of them.
		const tricky = {
			...transactionFields(),
			transactionId: "T-express",
			descriptor: "  SHOP/ÉTÉ ☕  ",
			metadata: { "10": "a", "9": "b", note: "x\ty" },
		};
		expect(await post(url, signedBody(tricky))).toMatchObject({ status: 200, body: { returnCode: "100" } });
		expect(await post(url, signedBody({ ...tricky, transactionId: "T-express-21" }, "2.1"))).toMatchObject({
			status: 200,
		});
		expect(await post(url, JSON.stringify({ ...JSON.parse(signedBody(tricky)), ref: "other" }))).toMatchObject({
			status: 401,
		});
		expect(onTransaction).toHaveBeenCalledTimes(2);
		// 2.0 hands out what was signed: the reference form trims every string. 2.1 signs the payload as is.
		expect(onTransaction.mock.calls[0]?.[0]).toMatchObject({
			descriptor: "SHOP/ÉTÉ ☕",
			metadata: { "10": "a", "9": "b" },
		});
		expect(onTransaction.mock.calls[1]?.[0]).toMatchObject({ descriptor: "  SHOP/ÉTÉ ☕  " });
	});

	it("Express with express.text() or express.raw() for JSON verifies too", async () => {
		for (const parser of [express.text({ type: "application/json" }), express.raw({ type: "application/json" })]) {
			const { options, onTransaction } = callbacks();
			const app = express();
			app.use(parser);
			app.post("/ipn", toNodeListener(createNotificationHandler(options)));
			const server = await listen(app);
			closers.push(server.close);
			expect(await post(`${server.url}/ipn`, transactionIpn("T-text", "2.1"))).toMatchObject({ status: 200 });
			expect(onTransaction).toHaveBeenCalledTimes(1);
		}
	});

	it("Express: a middleware that swallowed the body without parsing it gets a clear 500", async () => {
		const { options } = callbacks();
		const app = express();
		app.use((req, _res, next) => {
			req.resume();
			req.on("end", () => next());
		});
		app.post("/ipn", toNodeListener(createNotificationHandler(options)));
		const server = await listen(app);
		closers.push(server.close);
		const response = await post(`${server.url}/ipn`, transactionIpn("T-swallowed"));
		expect(response.status).toBe(500);
		expect(response.body).toMatchObject({ returnCode: "500", description: expect.stringMatching(/consumed/) });
	});

	it("Hono: the Web handler takes c.req.raw", async () => {
		const { options, onTransaction } = callbacks();
		const handler = createNotificationHandler(options);
		const app = new Hono();
		app.post("/ipn", (c) => handler(c.req.raw));
		const response = await app.request("/ipn", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: transactionIpn("T-hono", "2.1"),
		});
		expect(response.status).toBe(200);
		expect(await response.json()).toMatchObject({ returnCode: "100" });
		await tick();
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});
});
