import { execFile } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, test } from "vitest";
import {
	InvalidResponseError,
	OutcomeUnknownError,
	ResponseTooLargeError,
	SignatureVerificationError,
} from "../../src/index.js";
import { ids, signedFlat, transaction } from "../support/gateway-messages.js";
import { keys } from "../support/vectors.js";
import { checkoutParams, makeClient } from "./helpers.js";

/**
 * `maxResponseBytes` bounds what the client reads, counted on the decoded
 * bytes. The hostile responses come from a real loopback server; the three big
 * ones are read in a separate Node process each, whose peak RSS is measured.
 */

const MiB = 1024 * 1024;
const run = promisify(execFile);

type Behaviour = (request: IncomingMessage, response: ServerResponse) => void;
const servers: Server[] = [];
let hits = 0;

async function serve(...behaviours: Behaviour[]): Promise<string> {
	let served = 0;
	const server = createServer((request, response) => {
		request.resume();
		request.on("end", () => {
			hits++;
			const behaviour = behaviours[Math.min(served++, behaviours.length - 1)] as Behaviour;
			behaviour(request, response);
		});
	});
	servers.push(server);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
	hits = 0;
	for (const server of servers.splice(0)) {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
});

/** Writes `chunk` until `total` bytes are out (Infinity: forever) or the client hangs up, with backpressure. */
function stream(response: ServerResponse, chunk: Buffer, total: number): void {
	let sent = 0;
	let closed = false;
	response.on("close", () => {
		closed = true;
	});
	const pump = () => {
		while (!closed && sent < total) {
			const piece = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
			sent += piece.length;
			if (!response.write(piece)) return void response.once("drain", pump);
		}
		if (!closed) response.end();
	};
	pump();
}

const json =
	(body: string | Buffer, headers: Record<string, string> = {}): Behaviour =>
	(_request, response) => {
		response.writeHead(200, { "content-type": "application/json", ...headers }).end(body);
	};
const warmUp = json(gzipSync("{}"), { "content-encoding": "gzip" });
const filler = Buffer.alloc(64 * 1024, "x");
const endless: Behaviour = (_request, response) => {
	response.writeHead(200, { "content-type": "application/json" });
	stream(response, filler, Number.POSITIVE_INFINITY);
};
const hundredMegabytes: Behaviour = (_request, response) => {
	response.writeHead(200, { "content-type": "application/json", "content-length": String(100_000_000) });
	stream(response, filler, 100_000_000);
};
/** 2 GiB of zeros as 128 gzip members of 16 MiB each (a gzip stream may hold several): about 2 MB on the wire. */
const member = gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
const bomb = Buffer.concat(Array.from({ length: 128 }, () => member));
const gzipBomb: Behaviour = (_request, response) => {
	const encoding = { "content-encoding": "gzip", "content-length": String(bomb.length) };
	response.writeHead(200, { "content-type": "application/json", ...encoding });
	stream(response, bomb, bomb.length);
};

const probe = fileURLToPath(new URL("./support/memory-probe.mjs", import.meta.url));
const entry = fileURLToPath(new URL("../../src/index.ts", import.meta.url));

interface ProbeReport {
	error?: string;
	cause?: string;
	limitBytes?: number;
	orderRef?: string;
	message?: string;
	watchdog?: string;
	peakAboveBaselineMiB: number;
}

async function inChildProcess(baseUrl: string, call: "query" | "checkout"): Promise<ProbeReport> {
	const args = ["--expose-gc", probe, entry, baseUrl, call, keys.merchantPrivate, keys.gatewayPublic];
	const { stdout } = await run(process.execPath, args, { encoding: "utf8", timeout: 120_000 });
	return JSON.parse(stdout.trim().split("\n").pop() as string) as ProbeReport;
}

describe("hostile response sizes, each in its own process: peak memory stays bounded", () => {
	test("the bomb really is one: about 2 MB on the wire, 2 GiB inflated", () => {
		expect(bomb.length).toBeGreaterThan(1.5 * MiB);
		expect(bomb.length).toBeLessThan(2.5 * MiB);
		expect(gunzipSync(member).length * 128).toBe(2 * 1024 * MiB);
	});

	test("an endless response to a query: ResponseTooLargeError, not retried", { timeout: 120_000 }, async () => {
		const report = await inChildProcess(await serve(warmUp, endless), "query");
		expect(report.peakAboveBaselineMiB).toBeLessThan(50);
		expect(report).toMatchObject({ error: "ResponseTooLargeError", limitBytes: MiB });
		expect(hits).toBe(2);
	});

	test("a 100 MB response to a create: OutcomeUnknownError (ResponseTooLargeError)", { timeout: 120_000 }, async () => {
		const report = await inChildProcess(await serve(warmUp, hundredMegabytes), "checkout");
		expect(report.peakAboveBaselineMiB).toBeLessThan(50);
		expect(report).toMatchObject({ error: "OutcomeUnknownError", cause: "ResponseTooLargeError", limitBytes: MiB });
		expect(report.orderRef).toBe("ORD-BIG");
		expect(report.message).toMatch(/larger than maxResponseBytes/);
	});

	test("a gzip bomb (2 MB on the wire, 2 GiB inflated): stopped at 1 MiB inflated", { timeout: 120_000 }, async () => {
		const report = await inChildProcess(await serve(warmUp, gzipBomb), "query");
		expect(report.peakAboveBaselineMiB).toBeLessThan(50);
		expect(report).toMatchObject({ error: "ResponseTooLargeError", limitBytes: MiB });
	});
});

describe("the limit, in process", () => {
	const signedResponse = JSON.stringify(signedFlat(transaction(), "2.0"));
	const client = (baseUrl: string, maxResponseBytes?: number) =>
		makeClient({ baseUrl, allowLoopbackHttp: true, ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }) });

	test("a response of exactly maxResponseBytes is read; one byte more is not", async () => {
		const size = Buffer.byteLength(signedResponse);
		const baseUrl = await serve(json(signedResponse));
		const read = await client(baseUrl, size).transactions.retrieve(ids.transaction);
		expect(read.transactionId).toBe(ids.transaction);
		const error = await client(baseUrl, size - 1)
			.transactions.retrieve(ids.transaction)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ResponseTooLargeError);
		expect((error as ResponseTooLargeError).limitBytes).toBe(size - 1);
		expect((error as ResponseTooLargeError).status).toBe(200);
		expect((error as ResponseTooLargeError).message).toContain(`maxResponseBytes (${size - 1} bytes`);
	});

	test("counted on the decoded bytes: 10 KB of gzip that inflates to 2 MiB is over the default 1 MiB", async () => {
		const padded = JSON.stringify({ ...signedFlat(transaction(), "2.0"), padding: " ".repeat(2 * MiB) });
		const compressed = gzipSync(padded);
		expect(compressed.length).toBeLessThan(10_000);
		const baseUrl = await serve(json(compressed, { "content-encoding": "gzip" }));
		await expect(client(baseUrl).transactions.retrieve(ids.transaction)).rejects.toBeInstanceOf(ResponseTooLargeError);
		expect(hits).toBe(1);
		// Under a limit that fits its decoded size the response is read, then refused on its signature
		// (the padding was added after signing).
		const read = await client(baseUrl, 3 * MiB)
			.transactions.retrieve(ids.transaction)
			.catch((e: unknown) => e);
		expect(read).toBeInstanceOf(SignatureVerificationError);
	});

	test("a create whose response is too large: OutcomeUnknownError naming the orderRef, sent once", async () => {
		const baseUrl = await serve(json(`{"status":"created","padding":"${"x".repeat(2000)}"}`));
		const error = await client(baseUrl, 1000)
			.checkout.create(checkoutParams({ orderRef: "ORD-LARGE" }))
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(OutcomeUnknownError);
		expect((error as OutcomeUnknownError).orderRef).toBe("ORD-LARGE");
		expect((error as Error).cause).toBeInstanceOf(ResponseTooLargeError);
		expect(hits).toBe(1);
	});

	test("an error response past the limit: ResponseTooLargeError with its status, not retried", async () => {
		const baseUrl = await serve((_request, response) => {
			response.writeHead(503, { "content-type": "application/json" });
			response.end(`{"status":"error","message":"${"x".repeat(5000)}"}`);
		});
		const error = await client(baseUrl, 1000)
			.transactions.retrieve(ids.transaction)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ResponseTooLargeError);
		expect((error as ResponseTooLargeError).status).toBe(503);
		expect(hits).toBe(1);
	});

	test("UTF-8 is decoded as Response.text() does, across chunk boundaries", async () => {
		const text = `\uFEFF${"é€😀".repeat(30_000)}`;
		const bytes = Buffer.from(text);
		const baseUrl = await serve((_request, response) => {
			response.writeHead(400, { "content-type": "text/plain" });
			// Slices of 1001 bytes split multi-byte characters.
			for (let offset = 0; offset < bytes.length; offset += 1001) response.write(bytes.subarray(offset, offset + 1001));
			response.end();
		});
		const error = await client(baseUrl)
			.transactions.retrieve(ids.transaction)
			.catch((e: unknown) => e);
		expect(error).toBeInstanceOf(InvalidResponseError);
		expect((error as InvalidResponseError).excerpt?.startsWith("é€😀é€😀")).toBe(true);
	});

	test("maxResponseBytes is validated", () => {
		expect(() => client("https://gateway.test", 0)).toThrow(/maxResponseBytes: must be an integer from 1/);
		expect(() => client("https://gateway.test", 1.5)).toThrow(/maxResponseBytes/);
	});
});
