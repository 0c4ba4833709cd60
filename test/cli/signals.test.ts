import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { sealMessage } from "../../src/signing/index.js";
import { postForm } from "../sandbox/helpers.js";
import { keyPath, keys } from "../support/vectors.js";
import { SANDBOX_READY } from "./control-support.js";
import { type CliProcess, startCliProcess } from "./spawn.js";

/**
 * Ctrl+C and SIGTERM, sent to real CLI processes. Each test waits for an event that proves the
 * process is where the signal matters (a banner printed, input being read, a request received),
 * never for a fixed time.
 */

const running: CliProcess[] = [];
const servers: Server[] = [];
afterEach(async () => {
	for (const cli of running.splice(0)) if (cli.child.exitCode === null) cli.child.kill("SIGKILL");
	for (const server of servers.splice(0)) {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
});

function cli(argv: string[]): CliProcess {
	const started = startCliProcess(argv);
	running.push(started);
	return started;
}

/** A loopback server that receives requests and never responds to them; resolves each arrival. */
async function silentServer(): Promise<{ url: string; received: Promise<IncomingMessage> }> {
	let arrived: (req: IncomingMessage) => void = () => {};
	const received = new Promise<IncomingMessage>((resolve) => {
		arrived = resolve;
	});
	const server = createServer((req) => arrived(req));
	servers.push(server);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const sandboxArgs = ["sandbox", "--port", "0", "--merchant-key", keyPath("merchant-public")];

describe("the sandbox stops cleanly", () => {
	test.each(["SIGINT", "SIGTERM"] as const)("on %s: closes its server and exits 0", async (signal) => {
		const sandbox = cli([...sandboxArgs, "--key", keyPath("gateway-private"), "-q"]);
		const banner = await sandbox.waitForOutput(SANDBOX_READY);
		const url = /listening on (http:\/\/[^\s]+)/.exec(banner)?.[1] ?? "";
		expect((await fetch(url)).status).toBe(200);
		sandbox.child.kill(signal);
		expect(await sandbox.exited).toEqual({ code: 0, signal: null });
		expect(sandbox.out()).toContain("sandbox stopped");
		await expect(fetch(url)).rejects.toThrow();
	});

	// The sandbox used to wait for such an IPN's 30-second acknowledgement timeout before it could exit.
	test("on Ctrl+C while an IPN waits on a merchant server that never responds", { timeout: 20_000 }, async () => {
		const shop = await silentServer();
		const sandbox = cli([...sandboxArgs, "--key", keyPath("gateway-private"), "-m", "shop"]);
		const url = /listening on (http:\/\/[^\s]+)/.exec(await sandbox.waitForOutput("Press Ctrl+C"))?.[1] ?? "";
		const fields = {
			merchantId: "shop",
			orderRef: "signal-1",
			amount: 10,
			currency: "EUR",
			paymentMethod: "checkout",
			orderDescription: "An order",
			callbackUrl: `${shop.url}/callback`,
			notificationUrl: `${shop.url}/ipn`,
			cancelUrl: `${shop.url}/cancel`,
			errorUrl: `${shop.url}/error`,
		};
		const created = await fetch(`${url}/v2/checkout`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(sealMessage(fields, { privateKey: keys.merchantPrivate })),
		});
		const link = new URL(String(((await created.json()) as { paymentLink: string }).paymentLink));
		await postForm(`${url}${link.pathname}`, { token: link.searchParams.get("token") ?? "", action: "approve" });
		const ipn = await shop.received;
		expect(ipn.url).toBe("/ipn");
		sandbox.child.kill("SIGINT");
		expect(await sandbox.exited).toEqual({ code: 0, signal: null });
	});
});

describe("a command that does not wait for a stop signal ends at once", () => {
	/** verify-ipn reading an endless body from stdin: 'drain' proves the process is reading it. */
	async function readingStdin(): Promise<CliProcess> {
		const verify = cli(["verify-ipn", "-", "--gateway-key", keyPath("gateway-public")]);
		const stdin = verify.child.stdin;
		if (!stdin) throw new Error("started with a pipe as its stdin");
		// Under the 1 MiB the CLI reads, and more than the pipe holds.
		if (stdin.write(" ".repeat(512 * 1024))) throw new Error("a 512 KiB write should fill the pipe");
		await new Promise((resolve) => stdin.once("drain", resolve));
		return verify;
	}

	// Ended by the signal itself (its default action), which a shell reports as 128 + its number: 130, 143.
	test.each(["SIGINT", "SIGTERM"] as const)("verify-ipn reading standard input, on %s", async (signal) => {
		const verify = await readingStdin();
		verify.child.kill(signal);
		expect(await verify.exited).toEqual({ code: null, signal });
		expect(verify.err()).toContain(`stopped by ${signal}`);
	});

	test("checkout create waiting for the gateway's response, on Ctrl+C", async () => {
		const gateway = await silentServer();
		const create = cli([
			"checkout",
			"create",
			"--sandbox-url",
			gateway.url,
			"--key",
			keyPath("merchant-private"),
			"--gateway-key",
			keyPath("gateway-public"),
			"--amount",
			"10.00",
			"--currency",
			"EUR",
		]);
		expect((await gateway.received).url).toBe("/v2/checkout");
		create.child.kill("SIGINT");
		expect(await create.exited).toEqual({ code: null, signal: "SIGINT" });
		expect(create.err()).toContain("stopped by SIGINT");
	});
});
