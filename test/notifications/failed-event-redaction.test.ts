// A failed event's lastError is what the operator's list shows: card data and credentials in the callback's
// error never reach the store.
import { expect, it, vi } from "vitest";
import { createMemoryStore, createNotificationHandler } from "../../src/index.js";
import { redactText } from "../../src/internal/redact.js";
import { describeFailure } from "../../src/notifications/claims/failed-event-record.js";
import { gatewayPublicKey, ipnRequest, transactionIpn } from "./fixtures.js";

// The redaction as it is, watched: how much text a long error makes it read.
vi.mock("../../src/internal/redact.js", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../../src/internal/redact.js")>();
	return { ...actual, redactText: vi.fn(actual.redactText) };
});

/** The stored lastError of one callback that throws `error`. */
async function storedError(error: unknown): Promise<string | undefined> {
	const handler = createNotificationHandler({
		gatewayPublicKey,
		store: createMemoryStore(),
		onTransaction: () => {
			throw error;
		},
		onRefund: () => {},
		onError: () => {},
	});
	const response = await handler(ipnRequest(transactionIpn("T-REDACT-1")));
	expect(response.status).toBe(500);
	return (await handler.failedEvents.list()).events[0]?.lastError;
}

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
	expect(await storedError(new Error(message))).toBe(stored);
});

it("a megabyte-long callback error is stored as its first 1000 characters, and only its start is redacted", async () => {
	const message = "1 ".repeat(512 * 1024);
	vi.mocked(redactText).mockClear();
	expect(await storedError(new Error(message))).toBe(`${`Error: ${message}`.slice(0, 999)}…`);
	const read = vi.mocked(redactText).mock.calls.map(([text]) => text.length);
	expect(read.length).toBeGreaterThan(0);
	expect(Math.max(...read)).toBeLessThan(10_000);
});

it.each([
	["short", ""],
	["long", " and more".repeat(1000)],
])("a card number the 1000-character limit goes through is masked, in a %s error", (_, after) => {
	const before = "late ".repeat(197);
	const stored = describeFailure(new Error(`${before} 4242 4242 4242 4242 declined${after}`));
	expect(stored).toBe(`${`Error: ${before} 424242******4242 declined${after}`.slice(0, 999)}…`);
});

it("a quoted secret longer than what is kept, starting in the part shown, is not shown in part", () => {
	const token = "eyJhbGciOiJIUzI1NiJ9".repeat(400);
	for (const quoted of [`"accessToken":"${token}"`, `'password' => '${token}'`, `{\\"token\\":\\"${token}\\"}`]) {
		const stored = describeFailure(new Error(`upstream refused ${quoted} at ${"x".repeat(5000)}`));
		expect(stored).toContain("[redacted]");
		expect(stored).not.toContain("eyJ");
	}
});

it("a long error's secrets the redaction's own cut goes through are not shown, even after a key shortened it", () => {
	const key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(50);
	const cards = "card 4242 4242 4242 4242 declined; ".repeat(200);
	// Every shift of the cards against the cut: somewhere the cut goes through a card's digits.
	for (let shift = 0; shift < 35; shift++) {
		const stored = describeFailure(new Error(`${key}, then ${"-".repeat(shift)}${cards}`));
		expect(stored).toMatch(/^Error: \[redacted key\], then -*card 424242\*{6}4242 declined; /);
		expect(stored).not.toMatch(/\d{4} \d/);
		expect(stored.endsWith("…")).toBe(true);
	}
});
