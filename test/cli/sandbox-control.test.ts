import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "../../src/cli/run.js";
import { formatDuration } from "../../src/sandbox/cli-entry.js";
import { openMessage } from "../../src/signing/index.js";
import type { DeliveryAttempt } from "../../src/testing.js";
import { ack, type Receiver, startReceiver } from "../sandbox/helpers.js";
import { keys } from "../support/vectors.js";
import {
	control,
	merchantClient,
	paidCheckout,
	type SandboxProcess,
	seededStateDir,
	startSandboxProcess,
} from "./control-support.js";
import { runCliProcess } from "./spawn.js";

/** The receiver refuses the IPNs of the transactions in this set, with HTTP 500 "not ready". */
const refusing = new Set<string>();
const idOf = (body: string): string => {
	try {
		const fields = openMessage(body, { publicKey: keys.gatewayPublic });
		return String(fields.refundId ?? fields.transactionId);
	} catch {
		return "";
	}
};

describe("controlling a running sandbox from the command line", () => {
	let receiver: Receiver;
	let sandbox: SandboxProcess;
	const stateDir = seededStateDir();
	const run = (...args: string[]) => control(stateDir, ...args);
	const json = async <T>(...args: string[]): Promise<T> => {
		const result = await run(...args, "--json");
		expect(result.err).toBe("");
		expect(result.code).toBe(0);
		return JSON.parse(result.out) as T;
	};

	beforeAll(async () => {
		receiver = await startReceiver((_n, body) =>
			refusing.has(idOf(body)) ? { status: 500, body: "not ready" } : ack(),
		);
		// The gateway's own retry schedule, on a clock that only the commands below move ahead.
		sandbox = await startSandboxProcess(["--state-dir", stateDir, "--refund-approval", "manual"]);
	});
	afterAll(async () => {
		await sandbox?.stop();
		await receiver?.close();
	});

	test("checkout create --state-dir --json prints transactionId and paymentLink; transactions lists it", async () => {
		const created = await runCliProcess([
			...["checkout", "create", "--state-dir", stateDir, "--amount", "12.50", "--currency", "EUR"],
			...["--order-ref", "control-listed", "--notification-url", `${receiver.url}/ipn`, "--json"],
		]);
		expect(created.err).toBe("");
		expect(created.code).toBe(0);
		const { transactionId, paymentLink } = JSON.parse(created.out);
		expect(paymentLink).toMatch(new RegExp(`^${sandbox.url}/pay/${transactionId}\\?token=`));
		const listed = await run("transactions");
		expect(listed.code).toBe(0);
		expect(listed.out).toMatch(/^TRANSACTION +REF +STATUS +AMOUNT +CURRENCY +CREATED$/m);
		expect(listed.out).toMatch(new RegExp(`^${transactionId} +control-listed +incomplete +12\\.50 +EUR +\\d{4}-`, "m"));
		const [first] =
			await json<{ transactionId: string; ref: string; status: string; refunds: unknown[] }[]>("transactions");
		expect(first).toMatchObject({ transactionId, ref: "control-listed", status: "incomplete", amount: 12.5 });
		expect(first?.refunds).toEqual([]);
	});

	test("a refused IPN: live log and ipn list show the response and next retry; ipn resend sends it now", async () => {
		const gateway = merchantClient(sandbox.url);
		const transactionId = await paidCheckout(gateway, receiver.url);
		refusing.add(transactionId);
		const event = `transaction:${transactionId}:successful`;
		const refused = `${event} -> ${receiver.url}/ipn: rejected: HTTP 500; the merchant's response: HTTP 500 not ready`;
		// The retry's time is the schedule's (30 minutes after the transaction started: test/sandbox/state-dir); the
		// wait shown counts from the attempt's end, in whole seconds, however long the attempt took on this machine.
		const logged = await sandbox.process.waitForOutput(
			new RegExp(`IPN ${literal(refused)}, attempt 1; next retry \\S+ \\(in [\\dhms]+\\)`),
		);
		const attempts = await json<DeliveryAttempt[]>("ipn", "list");
		const first = attempts.find((a) => a.eventId === event);
		expect(first).toMatchObject({
			outcome: "rejected",
			httpStatus: 500,
			responseExcerpt: "not ready",
			nextAttemptAt: expect.any(String),
		});
		const waitMs = Date.parse(first?.nextAttemptAt ?? "") - Date.parse(first?.finishedAt ?? "");
		const nextRetry = `next retry ${first?.nextAttemptAt} (in ${formatDuration(Math.round(waitMs / 1000) * 1000)})`;
		expect(logged).toContain(`IPN ${refused}, attempt 1; ${nextRetry}`);
		const listed = await run("ipn", "list");
		expect(listed.out).toMatch(new RegExp(`^\\S+Z  ${literal(`${refused}, attempt 1; ${nextRetry}`)}$`, "m"));

		refusing.delete(transactionId);
		const resent = await run("ipn", "resend", transactionId.toUpperCase());
		expect(resent.err).toBe("");
		expect(resent.code).toBe(0);
		expect(resent.out).toBe(
			`IPN ${event} -> ${receiver.url}/ipn: acknowledged (HTTP 200, returnCode "100"), attempt 2\n`,
		);
		// Acknowledged, the retry that waited is called off: moving past its time sends nothing more.
		const moved = await run("clock", "advance", "31m");
		expect(moved.code).toBe(0);
		expect(moved.out).not.toContain(transactionId);
		const after = await json<DeliveryAttempt[]>("ipn", "list");
		expect(after.filter((a) => a.eventId === event).map((a) => a.outcome)).toEqual(["rejected", "acknowledged"]);
		// ipn list no longer shows that retry as due.
		const relisted = await run("ipn", "list");
		expect(relisted.out).toMatch(
			new RegExp(`^\\S+Z  ${literal(refused)}, attempt 1; its retry called off: attempt 2 was acknowledged$`, "m"),
		);
	});

	test("clock advance runs the retries that fell due and prints the merchant's responses", async () => {
		const gateway = merchantClient(sandbox.url);
		const transactionId = await paidCheckout(gateway, receiver.url);
		refusing.add(transactionId);
		const event = `transaction:${transactionId}:successful`;
		await sandbox.process.waitForOutput(`IPN ${event} -> ${receiver.url}/ipn: rejected`);
		const early = await run("clock", "advance", "29m");
		expect(early.out).not.toContain(transactionId);
		refusing.delete(transactionId);
		const due = await run("clock", "advance", "90s");
		expect(due.code).toBe(0);
		expect(due.out).toMatch(/^sandbox clock: \d{4}-\d\d-\d\dT[\d:.]+Z$/m);
		expect(due.out).toContain(
			`IPN ${event} -> ${receiver.url}/ipn: acknowledged (HTTP 200, returnCode "100"), attempt 2`,
		);
		expect(receiver.ipns.filter((ipn) => idOf(ipn.body) === transactionId)).toHaveLength(2);
	});

	test("refunds approve: the held refund becomes refund_successful and its IPN follows", async () => {
		const gateway = merchantClient(sandbox.url);
		const transactionId = await paidCheckout(gateway, receiver.url);
		const held = await gateway.refunds.create({ transactionId, amount: 5, reason: "Damaged" });
		expect(held.approval).toBe("pending_approval");
		const listed = await run("transactions");
		expect(listed.out).toContain(`  refund ${held.refundId}  5.00 EUR  refund_under_review`);

		const approved = await run("refunds", "approve", held.refundId);
		expect(approved.err).toBe("");
		expect(approved.code).toBe(0);
		expect(approved.out).toContain(
			`refund ${held.refundId} (5.00 EUR of transaction ${transactionId}) is refund_successful`,
		);
		const event = `refund:${held.refundId}:refund_successful`;
		expect(approved.out).toContain(`IPN ${event} -> ${receiver.url}/ipn: acknowledged (HTTP 200, returnCode "100")`);
		// Held, then approved: the merchant heard of both, each signed by the gateway.
		const statuses = receiver.ipns
			.filter((r) => idOf(r.body) === held.refundId)
			.map((r) => openMessage(r.body, { publicKey: keys.gatewayPublic }).status);
		expect(statuses).toEqual(["refund_under_review", "refund_successful"]);
		expect((await gateway.refunds.retrieve(held.refundId)).status).toBe("refund_successful");

		const again = await run("refunds", "approve", held.refundId);
		expect(again.code).toBe(1);
		expect(again.err).toContain(`${held.refundId} is refund_successful; only a refund under review can be approved`);
	});

	test("refunds reject --reason: refund_failed with that message, and its IPN", async () => {
		const gateway = merchantClient(sandbox.url);
		const transactionId = await paidCheckout(gateway, receiver.url);
		const held = await gateway.refunds.create({ transactionId, amount: 20 });
		const rejected = await json<{ refund: Record<string, unknown>; delivery: DeliveryAttempt }>(
			...["refunds", "reject", held.refundId, "--reason", "Goods not returned"],
		);
		expect(rejected.refund).toMatchObject({ status: "refund_failed", message: "Goods not returned" });
		expect(rejected.delivery).toMatchObject({
			eventId: `refund:${held.refundId}:refund_failed`,
			outcome: "acknowledged",
		});
		// Rejected, the amount is refundable again.
		expect((await gateway.refunds.create({ transactionId, amount: 20 })).approval).toBe("pending_approval");
	});

	test("clock advance 25h: the checkout session expires and its IPN goes out", async () => {
		const created = await runCliProcess([
			...["checkout", "create", "--state-dir", stateDir, "--amount", "3", "--currency", "EUR"],
			...["--notification-url", `${receiver.url}/ipn`, "--json"],
		]);
		const { transactionId } = JSON.parse(created.out);
		const moved = await run("clock", "advance", "25h");
		expect(moved.code).toBe(0);
		expect(moved.out).toContain(`IPN transaction:${transactionId}:expired -> ${receiver.url}/ipn: acknowledged`);
		const listed = await json<{ transactionId: string; status: string }[]>("transactions");
		expect(listed.find((t) => t.transactionId === transactionId)?.status).toBe("expired");
	});

	test("what cannot be done is named, with exit 1; bad usage exits 2", async () => {
		const created = await runCliProcess([
			...["checkout", "create", "--state-dir", stateDir, "--amount", "3", "--currency", "EUR", "--json"],
		]);
		const { transactionId } = JSON.parse(created.out);
		const cases: [string[], number, string][] = [
			[["refunds", "approve", "01jd0000000000000000000000"], 1, "01jd0000000000000000000000 names no refund"],
			[["ipn", "resend", transactionId], 1, `transaction ${transactionId} is incomplete: its IPN goes out once`],
			[["ipn", "resend", "nothing"], 1, "nothing names no transaction or refund in this sandbox"],
			[["clock", "advance", "30 minutes"], 2, "30 minutes must be a duration such as 90s, 30m, 25h"],
			[["clock", "rewind", "1h"], 2, "unknown action rewind; use advance"],
			[["refunds", "approve"], 2, "give the refund's id"],
			[["refunds", "approve", "x", "--reason", "no"], 2, "--reason goes with reject"],
			[["ipn", "list", "--limit", "0"], 2, "--limit must be a whole number from 1 to 1000"],
			[
				["transactions", "--sandbox-url", "https://sandbox.example.test"],
				1,
				"--sandbox-url: sandbox.example.test must be the sandbox's loopback address",
			],
		];
		for (const [args, code, message] of cases) {
			const result = await run(...args);
			expect(result.err, args.join(" ")).toContain(message);
			expect(result.code, args.join(" ")).toBe(code);
			expect(result.err).not.toMatch(/\n\s+at /);
		}
		// --sandbox-url names the address when it is given; the state directory still gives the credential.
		const listed = await run("transactions", "--sandbox-url", sandbox.url.replace("127.0.0.1", "localhost"));
		expect(listed.code).toBe(0);
		expect(listed.out).toContain(transactionId);
		const noDir = await runCliProcess(["sandbox", "transactions"]);
		expect(noDir.code).toBe(2);
		expect(noDir.err).toContain("--state-dir <dir> is required");
	}, 120_000); // a dozen CLI processes, one after another
});

describe("the control commands' help", () => {
	test.each(["transactions", "refunds", "ipn", "clock"])(
		"sandbox %s --help prints its usage and exits 0",
		async (name) => {
			const printed: string[] = [];
			const code = await runCli(["sandbox", name, "--help"], {
				stdout: (text) => printed.push(text),
				stderr: () => {},
				readStdin: async () => "",
				untilStopped: () => new Promise(() => {}),
			});
			const out = printed.join("");
			expect(code).toBe(0);
			expect(out).toContain(`Usage: merchant-gateway sandbox ${name}`);
			expect(out).toContain("--state-dir <dir>");
			expect(out).toContain("Exit codes");
		},
	);

	test("sandbox --help lists them", async () => {
		const { out, code } = await runCliProcess(["sandbox", "--help"]);
		expect(code).toBe(0);
		for (const name of ["transactions", "refunds", "ipn", "clock"])
			expect(out).toMatch(new RegExp(`^  sandbox ${name} `, "m"));
	});
});

describe("the live log", () => {
	test("--quiet silences it and the banner: one line, while IPNs go out as ever", async () => {
		const receiver = await startReceiver(() => ({ status: 503, body: "busy" }));
		const stateDir = seededStateDir();
		const sandbox = await startSandboxProcess(["--state-dir", stateDir, "--quiet"]);
		try {
			// What CI needs to read: where it listens, the merchant id and where the keys are.
			const keysIn = join(stateDir, "keys");
			expect(sandbox.banner).toBe(
				`Merchant Gateway sandbox listening on ${sandbox.url} (merchant id sandbox-merchant, keys in ${keysIn})\n`,
			);
			const transactionId = await paidCheckout(merchantClient(sandbox.url), receiver.url);
			// Moving the clock by nothing waits for the deliveries in flight.
			await control(stateDir, "clock", "advance", "0s");
			const listed = await control(stateDir, "ipn", "list");
			expect(listed.out).toContain(
				`transaction:${transactionId}:successful -> ${receiver.url}/ipn: rejected: HTTP 503`,
			);
			expect(receiver.ipns).toHaveLength(1);
			const afterBanner = sandbox.process.out().slice(sandbox.banner.length);
			expect(afterBanner).toBe("");
		} finally {
			await sandbox.stop();
			await receiver.close();
		}
	});
});

describe("the control API lets in this machine's requests with the credential only", () => {
	let sandbox: SandboxProcess;
	const stateDir = seededStateDir();
	const token = () => readFileSync(join(stateDir, "control-token"), "utf8").trim();

	beforeAll(async () => {
		sandbox = await startSandboxProcess(["--state-dir", stateDir, "--host", "0.0.0.0", "--allow-non-loopback", "-q"]);
	});
	afterAll(() => sandbox?.stop());

	const get = async (url: string, headers: Record<string, string> = {}) => {
		const response = await fetch(`${url}/control/transactions`, { headers });
		return { status: response.status, headers: response.headers, json: await response.json() };
	};

	test("the credential file is private; a missing or wrong credential gets a 401 saying what to send", async () => {
		expect(statSync(join(stateDir, "control-token")).mode & 0o777).toBe(0o600);
		expect(token()).toMatch(/^[\w-]{43}$/);
		const missing = await get(sandbox.url);
		expect(missing.status).toBe(401);
		expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer /);
		expect(missing.json).toEqual({
			status: "error",
			message: expect.stringContaining("send Authorization: Bearer <token>, the token in the control-token file"),
		});
		const wrong = await get(sandbox.url, { authorization: `Bearer ${token().slice(1)}x` });
		expect(wrong.status).toBe(401);
		expect(wrong.json.message).toContain("The control credential is wrong");
		const right = await get(sandbox.url, { authorization: `Bearer ${token()}` });
		expect(right.status).toBe(200);
		expect(right.json).toEqual({ transactions: [] });
	});

	test("a request from another address, through a proxy or to another host is refused, credential or not", async () => {
		const authorization = `Bearer ${token()}`;
		const port = new URL(sandbox.url).port;
		const external = Object.values(networkInterfaces())
			.flat()
			.find((address) => address?.family === "IPv4" && !address.internal)?.address;
		if (external) {
			const remote = await get(`http://${external}:${port}`, { authorization });
			expect(remote.status).toBe(403);
			expect(remote.json.message).toBe(`The control API serves this machine only; this request came from ${external}.`);
		}
		const proxied = await get(sandbox.url, { authorization, "x-forwarded-for": "203.0.113.9" });
		expect(proxied.status).toBe(403);
		expect(proxied.json.message).toContain("came through a proxy");
		// What a DNS-rebinding page or a tunnel to a public URL sends: a loopback peer, a foreign Host.
		const rebound = await rawGet(Number(port), "/control/transactions", { host: "evil.example", authorization });
		expect(rebound.status).toBe(403);
		expect(rebound.body).toContain("address it to a loopback host");
	});

	test("a credential file other users may read is refused, naming it and the fix", async () => {
		const path = join(stateDir, "control-token");
		chmodSync(path, 0o644);
		try {
			const result = await control(stateDir, "transactions");
			expect(result.code).toBe(1);
			expect(result.err).toContain(`${path} may be read by other users (mode 0644): run chmod 600 ${path}`);
		} finally {
			chmodSync(path, 0o600);
		}
	});

	test("once the sandbox stops, the commands say none runs on the directory", async () => {
		await sandbox.stop();
		expect(existsSync(join(stateDir, "sandbox.json"))).toBe(false);
		const result = await control(stateDir, "ipn", "list");
		expect(result.code).toBe(1);
		expect(result.err).toContain(`no sandbox is running on ${stateDir}`);
	});
});

/** A GET with headers fetch would not send as given (Host). */
function rawGet(
	port: number,
	path: string,
	headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
	return new Promise((resolve, reject) => {
		const req = request({ host: "127.0.0.1", port, path, headers }, (res) => {
			let body = "";
			res.setEncoding("utf8").on("data", (chunk: string) => {
				body += chunk;
			});
			res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
		});
		req.on("error", reject).end();
	});
}

function literal(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
