import { expect, test } from "vitest";
import { ConfigurationError } from "../../src/index.js";
import { startSandboxServer } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { startSandbox } from "./helpers.js";

test("sandbox options are checked at creation, naming the option", async () => {
	const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
	const { createSandbox } = await import("../../src/sandbox/create-sandbox.js");
	await expect(createSandbox({ gatewayKeys, baseUrl: "ftp://x" })).rejects.toThrow(/baseUrl/);
	await expect(createSandbox({ gatewayKeys, pendingDelayMs: -1 })).rejects.toThrow(/pendingDelayMs/);
	await expect(createSandbox({ gatewayKeys, ipn: { timeScale: -1 } })).rejects.toThrow(/timeScale/);
	await expect(createSandbox({ gatewayKeys, ipn: { ackTimeoutMs: 0 } })).rejects.toThrow(/ackTimeoutMs/);
	await expect(
		createSandbox({ gatewayKeys, merchants: [{ merchantId: "", publicKey: keys.merchantPublic }] }),
	).rejects.toThrow(/merchantId/);
	await expect(
		createSandbox({ gatewayKeys, merchants: [{ merchantId: "m", publicKey: "not a key" }] }),
	).rejects.toThrow(/public key/);
	await expect(startSandbox({ host: "192.0.2.1" })).rejects.toThrow(/allowNonLoopback/);
});

test("a wrong sandbox option or argument is a ConfigurationError naming each option and its rule", async () => {
	const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
	const { ConfigurationError } = await import("../../src/errors/index.js");
	const { createSandbox } = await import("../../src/sandbox/create-sandbox.js");
	const refused = await createSandbox({
		gatewayKeys,
		pendingDelayMs: -1,
		now: "yesterday",
		ipn: { duplicates: 11 },
	}).catch((error: unknown) => error);
	expect(refused).toBeInstanceOf(ConfigurationError);
	expect((refused as InstanceType<typeof ConfigurationError>).issues.map((issue) => issue.field)).toEqual([
		"pendingDelayMs",
		"now",
		"ipn.duplicates",
	]);
	const merchants = [{ merchantId: "m", publicKey: keys.merchantPublic, feeBySeller: 101 }];
	await expect(createSandbox({ gatewayKeys, merchants })).rejects.toThrow(ConfigurationError);
	const sandbox = await createSandbox({
		gatewayKeys,
		merchants: [{ merchantId: "m", publicKey: keys.merchantPublic }],
	});
	try {
		expect(() => sandbox.addMerchant({ merchantId: "m", publicKey: keys.merchantPublic })).toThrow(
			/merchantId: m is already registered/,
		);
		expect(() => sandbox.clock.advance(-1)).toThrow(ConfigurationError);
		expect(() => sandbox.clock.set(0)).toThrow(/cannot go backwards/);
		expect(() => sandbox.approveRefund("01k0svjxa7rxj0wwz0cqb85r6a")).toThrow(ConfigurationError);
		expect(() => sandbox.redeliver("dlv_999999")).toThrow(ConfigurationError);
	} finally {
		sandbox.close();
	}
});

test("sandbox durations stop at 2147483647 ms, what a timer honours, naming the option and the maximum", async () => {
	const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
	const { createSandbox } = await import("../../src/sandbox/create-sandbox.js");
	const tooLong = 2_147_483_648;
	const refused = await createSandbox({
		gatewayKeys,
		pendingDelayMs: tooLong,
		ipn: { ackTimeoutMs: tooLong, retryDelaysMs: [0, tooLong] },
	}).catch((error: unknown) => error);
	expect((refused as { issues: unknown }).issues).toEqual([
		{ field: "pendingDelayMs", message: "must be a number of milliseconds from 0 to 2147483647" },
		{ field: "ipn.retryDelaysMs.1", message: "must be a number of milliseconds from 0 to 2147483647" },
		{ field: "ipn.ackTimeoutMs", message: "must be an integer from 1 to 2147483647" },
	]);
	const sandbox = await createSandbox({ gatewayKeys, pendingDelayMs: tooLong - 1 });
	try {
		expect(() => sandbox.faults.next("/v2/checkout", { delayMs: tooLong })).toThrow(
			"faults[0].delayMs: must be a finite number of milliseconds, 0 or more (at most 2147483647)",
		);
	} finally {
		sandbox.close();
	}
});

test("startSandboxServer names each wrong server option and its rule, before the sandbox is made", async () => {
	const refused = async (options: unknown) => {
		const error = await startSandboxServer(options as never).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(ConfigurationError);
		return (error as ConfigurationError).issues.map((issue) => `${issue.field}: ${issue.message}`);
	};
	const token = "must be at least 16 characters: it is all that stands between other local users and the controls";
	expect(await refused({ controlToken: "short" })).toEqual([`controlToken: ${token}`]);
	expect(await refused({ controlToken: 1234567890123456 })).toEqual([`controlToken: ${token}`]);
	expect(await refused({ host: 42 })).toEqual(["host: must be a string"]);
	expect(await refused({ host: "192.0.2.1", allowNonLoopback: "yes" })).toEqual([
		"allowNonLoopback: must be a boolean",
	]);
	expect(await refused({ host: "192.0.2.1" })).toEqual([
		"host: 192.0.2.1 must be a loopback address (the sandbox listens on loopback only), or set allowNonLoopback: true",
	]);
});
