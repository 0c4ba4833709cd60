import { beforeAll, describe, expect, test } from "vitest";
import {
	type ClientErrorEvent,
	type ClientRequestEvent,
	type ClientResponseEvent,
	RequestValidationError,
} from "../../src/index.js";
import { useGateway } from "./gateway.js";
import { CARD, CVV, cardParams } from "./helpers.js";

const fixture = useGateway();
const makeClient = fixture.client;
/** A transaction the sandbox charged: what the queries ask for. */
const ids = { transaction: "" };
beforeAll(async () => {
	ids.transaction = await fixture.chargedTransaction();
});

describe("hooks", () => {
	test("onRequest gets the redacted fields, onResponse the status, onError the thrown error", async () => {
		const requests: ClientRequestEvent[] = [];
		const responses: ClientResponseEvent[] = [];
		const errors: ClientErrorEvent[] = [];
		const gateway = makeClient({
			hooks: {
				onRequest: (e) => requests.push(e),
				onResponse: (e) => responses.push(e),
				onError: (e) => errors.push(e),
			},
		});
		await gateway.card.charge(cardParams({ orderRef: "ORD-HOOKS" }));
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({
			method: "POST",
			path: "/v2/card/api",
			url: `${fixture.baseUrl}/v2/card/api`,
			attempt: 1,
			signVersion: "2.0",
		});
		expect(requests[0]?.fields.cardNumber).toBe("411111******1111");
		expect(requests[0]?.fields).not.toHaveProperty("cardSecurityCode");
		expect(requests[0]?.fields.orderRef).toBe("ORD-HOOKS");
		expect(responses[0]).toMatchObject({
			path: "/v2/card/api",
			status: 200,
			attempt: 1,
			durationMs: expect.any(Number),
		});
		expect(errors).toEqual([]);

		fixture.next("/v2/refund", () => Response.json({ status: "error", message: "nope", data: null }, { status: 400 }));
		await expect(gateway.refunds.create({ transactionId: ids.transaction, amount: 1 })).rejects.toThrow("nope");
		await expect(gateway.refunds.create({ transactionId: ids.transaction, amount: 0 })).rejects.toBeInstanceOf(
			RequestValidationError,
		);
		expect(errors.map((e) => [e.path, e.error.name])).toEqual([
			["/v2/refund", "ProcessingError"],
			["/v2/refund", "RequestValidationError"],
		]);
	});

	test("a hook that throws does not break the call, and is logged", async () => {
		const lines: string[] = [];
		const gateway = makeClient({
			hooks: {
				onRequest: () => {
					throw new Error(`hook bug ${CARD}`);
				},
			},
			logger: { warn: (message, data) => lines.push(message, JSON.stringify(data)) },
		});
		await expect(gateway.card.charge(cardParams())).resolves.toMatchObject({ outcome: "success" });
		expect(lines.join(" ")).toContain("The onRequest hook threw");
		expect(lines.join(" ")).not.toContain(CARD);
	});
});

describe("logger", () => {
	test("logLevel filters; debug lines carry redacted fields; a broken logger is ignored", async () => {
		const seen: Array<[string, string, unknown]> = [];
		const record = (level: string) => (message: string, data?: unknown) => seen.push([level, message, data]);
		const logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
		await makeClient({ logger, logLevel: "debug" }).card.charge(cardParams());
		const debug = seen.filter(([level]) => level === "debug");
		expect(debug.length).toBeGreaterThanOrEqual(2);
		expect(JSON.stringify(seen)).toContain("411111******1111");
		expect(JSON.stringify(seen)).not.toContain(CARD);
		expect(JSON.stringify(seen)).not.toContain(`"${CVV}"`);

		seen.length = 0;
		await makeClient({ logger, logLevel: "warn" }).card.charge(cardParams());
		expect(seen).toEqual([]);

		fixture.next("/v2/checkout/query", () => Response.json({}, { status: 503 }));
		await makeClient({ logger, logLevel: "warn" }).transactions.retrieve(ids.transaction);
		expect(seen.map(([level, message]) => [level, message.split(":")[0]])).toEqual([
			["warn", "POST /v2/checkout/query"],
		]);

		const broken = {
			debug: () => {
				throw new Error("logger down");
			},
		};
		await expect(
			makeClient({ logger: broken, logLevel: "debug" }).transactions.retrieve(ids.transaction),
		).resolves.toMatchObject({ status: "successful" });
	});
});
