// A failed event's lastError is what the operator's list shows: card data and credentials in the callback's
// error never reach the store.
import { expect, it } from "vitest";
import { createMemoryStore, createNotificationHandler } from "../../src/index.js";
import { gatewayPublicKey, ipnRequest, transactionIpn } from "./fixtures.js";

it.each([
	["charge refused: 4111111111111111 737", "Error: charge refused: 411111******1111 [redacted]"],
	["card 4111 1111 1111 1111 12/30", "Error: card 411111******1111 [redacted]"],
	["ERP said 401 to Bearer eyJhbGciOi.e30.c2ln", "Error: ERP said 401 to Bearer [redacted]"],
	[
		"cannot reach https://shop:s3cr3t@erp.example/orders",
		"Error: cannot reach https://shop:[redacted]@erp.example/orders",
	],
	["GET /stock?api_key=k-123&sku=9 failed", "Error: GET /stock?api_key=[redacted]&sku=9 failed"],
])("a callback error %j is stored redacted as the failed event's lastError", async (message, stored) => {
	const handler = createNotificationHandler({
		gatewayPublicKey,
		store: createMemoryStore(),
		onTransaction: () => {
			throw new Error(message);
		},
		onRefund: () => {},
		onError: () => {},
	});
	const response = await handler(ipnRequest(transactionIpn("T-REDACT-1")));
	expect(response.status).toBe(500);
	const [failed] = (await handler.failedEvents.list()).events;
	expect(failed?.lastError).toBe(stored);
});
