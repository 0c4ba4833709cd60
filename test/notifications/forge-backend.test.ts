import { beforeAll, describe, expect, it, vi } from "vitest";
import { createNotificationHandler, decodeCallback, verifyNotification } from "../../src/index.js";
import { useCryptoBackend } from "../../src/signing/index.js";
import { vector } from "../support/vectors.js";
import { gatewayPublicKey, ipnRequest, transactionIpn } from "./fixtures.js";

// Edge runtimes have no node:crypto: the SDK then verifies with node-forge. This file
// makes forge the default (vitest runs each file in its own process).
beforeAll(async () => {
	await useCryptoBackend("forge");
});

describe("notifications on the forge backend", () => {
	it("verifies the IPN and callback vectors", () => {
		expect(verifyNotification(vector("transaction-ipn-2.0").message, { gatewayPublicKey }).type).toBe("transaction");
		expect(verifyNotification(vector("transaction-ipn-2.1").message, { gatewayPublicKey }).signVersion).toBe("2.1");
		expect(decodeCallback(vector("callback-2.1").url as string, { gatewayPublicKey }).status).toBe("successful");
	});

	it("runs the handler", async () => {
		const onTransaction = vi.fn();
		const handler = createNotificationHandler({ gatewayPublicKey, onTransaction, onRefund: () => {} });
		expect((await handler(ipnRequest(transactionIpn("T-forge", "2.1")))).status).toBe(200);
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});
});
