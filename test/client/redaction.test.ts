import { inspect } from "node:util";
import { expect, test } from "vitest";
import { ids } from "../support/gateway-messages.js";
import { useGateway } from "./gateway.js";
import { cardParams } from "./helpers.js";

/**
 * The canary: a card number and a CVV pushed through every path (validation
 * errors, gateway errors echoing them, hooks, the logger, thrown errors'
 * messages and causes, inspect and JSON of everything). Neither may appear.
 */
const CANARY = "4242424242424242";
const CANARY_CVV = "7319";
const captured: string[] = [];
const capture = (value: unknown) => {
	captured.push(typeof value === "string" ? value : inspect(value, { depth: 20, showHidden: false }));
	try {
		captured.push(JSON.stringify(value) ?? "");
	} catch {
		// cycles: inspect above is enough
	}
};

const fixture = useGateway();

const logger = {
	debug: (...args: unknown[]) => args.forEach(capture),
	info: (...args: unknown[]) => args.forEach(capture),
	warn: (...args: unknown[]) => args.forEach(capture),
	error: (...args: unknown[]) => args.forEach(capture),
};

const echo = `cardNumber=${CANARY} cvv=${CANARY_CVV} {"cardNumber":"${CANARY}","cardSecurityCode":"${CANARY_CVV}"}`;

test.each(["2.0", "2.1"] as const)("the canary card number and CVV appear nowhere (%s)", async (version) => {
	captured.length = 0;
	const gateway = fixture.client({
		signVersion: version,
		logger,
		logLevel: "debug",
		hooks: { onRequest: capture, onResponse: capture, onRetry: capture, onError: capture },
	});
	const params = cardParams({ cardNumber: CANARY, cardSecurityCode: CANARY_CVV });
	const attempts: Array<() => Promise<unknown>> = [
		// client-side validation failures, with the canary valid and with a canary-like invalid number
		() => gateway.card.charge({ ...params, amount: 0 }),
		() => gateway.card.charge({ ...params, cardNumber: `${CANARY.slice(0, 15)}1`, cardSecurityCode: "12345" }),
		() => gateway.card.charge({ ...params, browserDetails: `{"x": "${CANARY}"` }),
		// success (hooks and debug log carry the request fields)
		() => gateway.card.charge(params),
	];
	const echoes: Array<[number, () => Response]> = [
		[
			422,
			() =>
				Response.json(
					{ status: "error", message: echo, errors: [{ field: "cardNumber", message: [echo] }] },
					{ status: 422 },
				),
		],
		[
			400,
			() =>
				Response.json({ status: "error", message: echo, data: { transactionId: ids.transaction } }, { status: 400 }),
		],
		[422, () => Response.json({ status: "error", transactionId: null, message: echo }, { status: 422 })],
		[500, () => new Response(`<pre>${echo}</pre>`, { status: 500 })],
		[200, () => new Response(`not json ${echo}`, { status: 200 })],
		[403, () => Response.json({ status: "error", message: echo }, { status: 403 })],
		[0, () => Response.error()],
	];
	for (const [, responder] of echoes) {
		fixture.next("/v2/card/api", responder);
		attempts.push(() => gateway.card.charge(params));
	}
	// a query failing through retries logs warnings and retry hooks
	fixture.next(
		"/v2/checkout/query",
		() => new Response(echo, { status: 503 }),
		() => Response.error(),
		() => new Response(echo, { status: 502 }),
	);
	attempts.push(() => gateway.transactions.retrieve(ids.transaction));

	let failures = 0;
	for (const attempt of attempts) {
		try {
			capture(await attempt());
		} catch (error) {
			failures++;
			capture(error);
			capture((error as Error).message);
			capture((error as Error).stack);
			capture((error as Error).cause);
			capture(String(error));
		}
	}
	expect(failures).toBe(attempts.length - 1);
	const everything = captured.join("\n");
	// the paths really were exercised: masked numbers and gateway texts are there
	expect(everything).toContain("424242******4242");
	expect(everything).toContain("RequestValidationError");
	expect(everything).toContain("GatewayValidationError");
	expect(everything).toContain("OutcomeUnknownError");
	expect(captured.length).toBeGreaterThan(40);
	expect(everything).not.toContain(CANARY);
	expect(everything).not.toContain(CANARY_CVV);
	expect(everything).not.toContain("PRIVATE KEY");
});
