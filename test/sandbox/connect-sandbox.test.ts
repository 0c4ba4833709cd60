import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { AuthenticationError, ConfigurationError, ConnectionError } from "../../src/index.js";
import { connectSandbox, type SandboxControl, startSandboxServer } from "../../src/testing.js";
import {
	merchantClient,
	paidCheckout,
	type SandboxProcess,
	seededStateDir,
	startSandboxProcess,
} from "../cli/control-support.js";
import { keys } from "../support/vectors.js";
import { ack, type Receiver, startReceiver } from "./helpers.js";

describe("connectSandbox: the sandbox's controls from a test's code, against a sandbox process", () => {
	let receiver: Receiver;
	let sandbox: SandboxProcess;
	let control: SandboxControl;
	const stateDir = seededStateDir("mg-connect-");
	let refuse = false;

	beforeAll(async () => {
		receiver = await startReceiver(() => (refuse ? { status: 500, body: "down" } : ack()));
		sandbox = await startSandboxProcess(["--state-dir", stateDir, "--refund-approval", "manual", "-q"]);
		control = await connectSandbox({ stateDir });
	});
	afterAll(async () => {
		await sandbox?.stop();
		await receiver?.close();
	});

	test("finds the sandbox through its state directory and lists its transactions with their refunds", async () => {
		expect(control.url).toBe(sandbox.url);
		const gateway = merchantClient(sandbox.url);
		const transactionId = await paidCheckout(gateway, receiver.url, 30);
		const held = await gateway.refunds.create({ transactionId, amount: 10 });
		const listed = (await control.transactions()).find((t) => t.transactionId === transactionId);
		expect(listed).toMatchObject({ status: "successful", amount: 30, currency: "EUR", provider: expect.any(String) });
		expect(listed?.refunds).toEqual([
			expect.objectContaining({ refundId: held.refundId, status: "refund_under_review" }),
		]);
	});

	test("approves and rejects held refunds, each result carrying the first delivery of its IPN", async () => {
		const gateway = merchantClient(sandbox.url);
		const transactionId = await paidCheckout(gateway, receiver.url, 30);
		const first = await gateway.refunds.create({ transactionId, amount: 10 });
		const second = await gateway.refunds.create({ transactionId, amount: 10 });
		const approved = await control.approveRefund(first.refundId);
		expect(approved.refund).toMatchObject({ refundId: first.refundId, status: "refund_successful" });
		expect(approved.delivery).toMatchObject({
			eventId: `refund:${first.refundId}:refund_successful`,
			outcome: "acknowledged",
			httpStatus: 200,
		});
		const rejected = await control.rejectRefund(second.refundId, "Out of policy");
		expect(rejected.refund).toMatchObject({ status: "refund_failed", message: "Out of policy" });
		const refused = await control.approveRefund(second.refundId).catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(ConfigurationError);
		expect((refused as ConfigurationError).issues).toEqual([
			{ field: "refundId", message: `${second.refundId} is refund_failed; only a refund under review can be approved` },
		]);
	});

	test("lists deliveries, resends an IPN now and moves the clock until the retries run", async () => {
		refuse = true;
		const transactionId = await paidCheckout(merchantClient(sandbox.url), receiver.url);
		const event = `transaction:${transactionId}:successful`;
		// Moving the clock by nothing waits for the delivery in flight.
		await control.advanceClock(0);
		const [last] = await control.deliveries({ limit: 1 });
		expect(last).toMatchObject({ eventId: event, outcome: "rejected", responseExcerpt: "down" });
		const again = await control.resendIpn(transactionId);
		expect(again).toMatchObject({
			eventId: event,
			outcome: "rejected",
			attempt: 2,
			nextAttemptAt: last?.nextAttemptAt,
		});
		refuse = false;
		const moved = await control.advanceClock("30m");
		expect(Date.parse(moved.now)).toBeGreaterThanOrEqual(Date.parse(last?.nextAttemptAt ?? ""));
		expect(moved.deliveries).toEqual([
			expect.objectContaining({ eventId: event, outcome: "acknowledged", attempt: 3 }),
		]);
	});

	test("wrong arguments, a wrong credential and a stopped sandbox each throw the SDK's error for it", async () => {
		await expect(control.advanceClock("soon")).rejects.toThrow(ConfigurationError);
		await expect(control.advanceClock(-1)).rejects.toThrow(ConfigurationError);
		await expect(control.resendIpn("nothing")).rejects.toThrow("nothing names no transaction or refund");
		const forged = await connectSandbox({ url: sandbox.url, token: "a-token-that-is-wrong" });
		const refused = await forged.transactions().catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(AuthenticationError);
		expect(refused).toMatchObject({ status: 401, message: expect.stringContaining("credential is wrong") });
		await expect(connectSandbox({ url: sandbox.url })).rejects.toThrow(ConfigurationError);
		await expect(connectSandbox({ url: "http://sandbox.example", token: "x" })).rejects.toThrow(
			"sandbox.example must be the sandbox's loopback address",
		);
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
		const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
		await new Promise((resolve) => closed.close(resolve));
		const gone = await connectSandbox({ url: nowhere, token: "any-token-at-all" });
		await expect(gone.transactions()).rejects.toThrow(ConnectionError);
	});
});

describe("startSandboxServer({ controlToken })", () => {
	const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };

	test("serves the control API with that credential; without one, /control says how to get it", async () => {
		const token = "a-control-token-for-this-test";
		const merchants = [{ merchantId: "shop", publicKey: keys.merchantPublic }];
		const server = await startSandboxServer({
			gatewayKeys,
			merchants,
			controlToken: token,
			now: "2030-01-01T00:00:00Z",
		});
		const bare = await startSandboxServer({ gatewayKeys });
		try {
			const control = await connectSandbox({ url: server.url, token });
			expect(await control.transactions()).toEqual([]);
			expect((await control.advanceClock("25h")).now).toBe("2030-01-02T01:00:00.000Z");
			expect(server.sandbox.clock.now().toISOString()).toBe("2030-01-02T01:00:00.000Z");
			const off = await fetch(`${bare.url}/control/transactions`);
			expect(off.status).toBe(404);
			expect((await off.json()).message).toContain("start it with --state-dir (or controlToken)");
		} finally {
			await server.close();
			await bare.close();
		}
		await expect(startSandboxServer({ gatewayKeys, controlToken: "short" })).rejects.toThrow(
			"controlToken: must be at least 16 characters",
		);
	});
});

describe("connectSandbox's options: each wrong one named with its rule, before anything is read or sent", () => {
	const refused = async (options: unknown) => {
		const error = await connectSandbox(options as never).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(ConfigurationError);
		return (error as ConfigurationError).issues.map((issue) => `${issue.field}: ${issue.message}`);
	};

	test("neither a state directory nor both url and token", async () => {
		expect(await refused({})).toEqual(["stateDir: is required unless url and token are given"]);
		expect(await refused({ url: "http://127.0.0.1:8080" })).toEqual([
			"stateDir: is required unless url and token are given",
		]);
	});

	test("a url that is not an absolute loopback http(s) URL, and values of the wrong kind", async () => {
		const token = "0123456789abcdef";
		expect(await refused({ url: "/control", token })).toEqual([
			"url: must be an absolute URL such as http://127.0.0.1:8080",
		]);
		expect(await refused({ url: "ftp://127.0.0.1/", token })).toEqual(["url: must be an http(s) URL"]);
		expect(await refused({ url: "http://sandbox.example.test", token })).toEqual([
			"url: sandbox.example.test must be the sandbox's loopback address (the control API serves this machine only)",
		]);
		expect(await refused({ stateDir: 42, token: 7 })).toEqual([
			"stateDir: must be a directory path",
			"token: must be a string",
		]);
	});
});
