import { describe, expect, test } from "vitest";
import { listAttempts } from "../../src/cli/commands/sandbox/ipn.js";
import type { DeliveryAttempt } from "../../src/testing.js";

// `sandbox ipn list` prints attempts as they were recorded; a retry that a later acknowledged resend called
// off must not read as still due.

const URL = "http://127.0.0.1:3000/ipn";
const EVENT = "transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful";

function attempt(number: number, outcome: DeliveryAttempt["outcome"], overrides: Partial<DeliveryAttempt> = {}) {
	const refused = outcome !== "acknowledged";
	const record: DeliveryAttempt = {
		deliveryId: "dlv_000001",
		attempt: number,
		eventId: EVENT,
		kind: "transaction",
		url: URL,
		duplicate: false,
		startedAt: "2026-01-10T12:00:00.000Z",
		finishedAt: "2026-01-10T12:00:00.100Z",
		outcome,
		httpStatus: refused ? 500 : 200,
		returnCode: refused ? undefined : "100",
		detail: refused ? "HTTP 500" : undefined,
		responseExcerpt: refused ? "not ready" : undefined,
		nextAttemptAt: undefined,
		...overrides,
	};
	return record;
}

const refusedFirst = attempt(1, "rejected", { nextAttemptAt: "2026-01-10T12:30:00.000Z" });
const lines = (attempts: DeliveryAttempt[]) => listAttempts(attempts).split("\n");

describe("sandbox ipn list", () => {
	test("a retry that an acknowledged resend called off is said to be called off, not due", () => {
		const resent = attempt(2, "acknowledged", {
			startedAt: "2026-01-10T12:00:08.000Z",
			finishedAt: "2026-01-10T12:00:08.050Z",
		});
		const [first, second] = lines([refusedFirst, resent]);
		expect(first).toBe(
			`2026-01-10T12:00:00.100Z  ${EVENT} -> ${URL}: rejected: HTTP 500; the merchant's response: HTTP 500 ` +
				"not ready, attempt 1; its retry called off: attempt 2 was acknowledged",
		);
		expect(first).not.toContain("next retry");
		expect(second).toBe(
			`2026-01-10T12:00:08.050Z  ${EVENT} -> ${URL}: acknowledged (HTTP 200, returnCode "100"), attempt 2`,
		);
	});

	test("a refused resend leaves the retry due; a retry that ran keeps the time it was due", () => {
		const refusedResend = attempt(2, "rejected", {
			startedAt: "2026-01-10T12:00:08.000Z",
			finishedAt: "2026-01-10T12:00:08.050Z",
			nextAttemptAt: "2026-01-10T12:30:00.000Z",
		});
		for (const line of lines([refusedFirst, refusedResend]))
			expect(line).toMatch(/next retry 2026-01-10T12:30:00\.000Z/);

		const retried = attempt(2, "acknowledged", {
			startedAt: "2026-01-10T12:30:00.000Z",
			finishedAt: "2026-01-10T12:30:00.040Z",
		});
		expect(lines([refusedFirst, retried])[0]).toContain("next retry 2026-01-10T12:30:00.000Z (in 30m)");
	});

	test("another notification's acknowledgement, or a duplicate, calls nothing off", () => {
		const other = attempt(1, "acknowledged", { deliveryId: "dlv_000002", startedAt: "2026-01-10T12:00:05.000Z" });
		const duplicate = attempt(2, "acknowledged", { duplicate: true, startedAt: "2026-01-10T12:00:06.000Z" });
		expect(lines([refusedFirst, other, duplicate])[0]).toContain("next retry 2026-01-10T12:30:00.000Z");
	});
});
