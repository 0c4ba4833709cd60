import type { Attributes } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createMemoryStore, createNotificationHandler, createReconciler } from "../../src/index.js";
import { useGateway } from "../client/gateway.js";
import { cardParams, checkoutParams } from "../client/helpers.js";
import {
	gatewayPublicKey,
	ipnRequest,
	merchantPrivateKey,
	signedBody,
	transactionFields,
} from "../notifications/fixtures.js";
import { ids } from "../support/gateway-messages.js";
import { type RecordedTelemetry, recordTelemetry, type TracingSdk } from "../support/otel.js";

/**
 * The telemetry canary: a card number, its security code and the customer's personal data (email,
 * names, postal address, phone, IP) pushed through every client path, successes and failures, with the
 * gateway echoing all of them back in every form, recorded by a real OpenTelemetry SDK. None of it may
 * appear in any span name, attribute, event or status, or in any metric's attributes.
 */
const CARD = "4242424242424242";
const CVV = "7319";
const PERSONAL = {
	billingFirstName: "Zelphine",
	billingLastName: "Quarrington",
	billingEmail: "zelphine.q@mailbox.example",
	billingStreet1: "742 Evergreen Terrace",
	billingStreet2: "Flat Nine",
	billingCity: "Springfieldton",
	billingPostalCode: "62704",
	billingPhoneNumber: "+1 555 0199",
	customerIp: "198.51.100.77",
};
const SECRETS = [CARD, CVV, ...Object.values(PERSONAL), "5550199", "zelphine"];

const gateway = useGateway();
/** The SDK recording the current group of tests (each group records with its own). */
let otel: RecordedTelemetry;

const echo = [
	`cardNumber=${CARD} cvv=${CVV}`,
	JSON.stringify({ cardNumber: CARD, cardSecurityCode: CVV, ...PERSONAL }),
	`Dear ${PERSONAL.billingFirstName} ${PERSONAL.billingLastName}, ${PERSONAL.billingStreet1}, ${PERSONAL.billingStreet2},`,
	`${PERSONAL.billingCity} ${PERSONAL.billingPostalCode}, ${PERSONAL.billingEmail}, ${PERSONAL.billingPhoneNumber},`,
	`from ${PERSONAL.customerIp}`,
].join(" ");
/** Every way the gateway answers that the client reads some text from. */
const ECHOES: Array<() => Response> = [
	() =>
		Response.json(
			{ status: "error", message: echo, errors: [{ field: "cardNumber", message: [echo] }] },
			{ status: 422 },
		),
	() => Response.json({ status: "error", message: echo, data: { transactionId: ids.transaction } }, { status: 400 }),
	() => Response.json({ status: "error", transactionId: null, message: echo }, { status: 422 }),
	() => Response.json({ status: "error", message: echo }, { status: 401 }),
	() => new Response(`<pre>${echo}</pre>`, { status: 500 }),
	() => new Response(`not json ${echo}`, { status: 200 }),
	() => Response.json({ status: "success", data: { transactionId: ids.transaction, note: echo } }),
	() => Response.error(),
];

/** Every string the telemetry holds: span names, attribute values, events, statuses, metric attributes. */
async function recordedStrings(): Promise<{ strings: string[]; numbers: number[] }> {
	const strings: string[] = [];
	const numbers: number[] = [];
	const collect = (attributes: Attributes | undefined) => {
		for (const [key, value] of Object.entries(attributes ?? {})) {
			strings.push(key);
			for (const item of Array.isArray(value) ? value : [value]) {
				if (typeof item === "string") strings.push(item);
				if (typeof item === "number") numbers.push(item);
			}
		}
	};
	for (const span of otel.spans()) {
		strings.push(span.name, span.status.message ?? "");
		collect(span.attributes);
		for (const event of span.events) {
			strings.push(event.name);
			collect(event.attributes);
		}
		for (const link of span.links) collect(link.attributes);
	}
	for (const metric of (await otel.metrics()).values()) {
		strings.push(metric.descriptor.name, metric.descriptor.description, metric.descriptor.unit);
		for (const point of metric.dataPoints) collect(point.attributes);
	}
	return { strings, numbers };
}

/** Every secret checked against everything recorded so far; returns what was recorded, for more checks. */
async function expectNoSecrets(): Promise<string> {
	const { strings, numbers } = await recordedStrings();
	const everything = strings.join("\n");
	const { port } = new URL(gateway.baseUrl);
	const withoutServer = everything.replaceAll(gateway.baseUrl, "").replaceAll(port, "");
	for (const secret of SECRETS) expect(withoutServer.toLowerCase(), secret).not.toContain(secret.toLowerCase());
	expect(withoutServer).not.toContain("PRIVATE KEY");
	expect(numbers).not.toContain(Number(CVV));
	expect(numbers).not.toContain(Number(CARD));
	// no body: nothing the size of a request or response
	expect(Math.max(...strings.map((text) => text.length))).toBeLessThanOrEqual(1000);
	return everything;
}

/** A merchant's callback failing with all of it in its message. */
const failingCallback = () => {
	throw new Error(
		`could not store the order of ${PERSONAL.billingFirstName} ${PERSONAL.billingLastName} ` +
			`(${PERSONAL.billingEmail}, ${PERSONAL.billingStreet1}), card ${CARD} cvv=${CVV}`,
	);
};

// Both generations of the tracing SDK: what the SDK hands to the API is recorded the same by each.
const SDKS: TracingSdk[] = ["sdk-trace", "sdk-trace-base"];

describe.each(SDKS)("recorded by @opentelemetry/%s", (sdk) => {
	beforeAll(async () => {
		otel = recordTelemetry(sdk);
		otel.instrument();
	});
	afterAll(() => otel.shutdown());

	test("no card number, security code, email, name, address, phone or IP in any span or metric", async () => {
		const client = gateway.client({ maxRetries: 2 });
		const card = cardParams({ cardNumber: CARD, cardSecurityCode: CVV, ...PERSONAL });
		const checkout = checkoutParams(PERSONAL);
		const calls: Array<() => Promise<unknown>> = [
			// successes: every endpoint
			() => client.checkout.create(checkout),
			async () => {
				const charged = await client.card.charge(card);
				await client.transactions.retrieve(charged.transactionId);
				const refund = await client.refunds.create({
					transactionId: charged.transactionId,
					amount: 1,
					reason: `refund for ${PERSONAL.billingEmail}`,
				});
				return client.refunds.retrieve(refund.refundId);
			},
			// refused before sending, with the card data in the refused values
			() => client.card.charge({ ...card, amount: 0 }),
			() => client.card.charge({ ...card, cardNumber: `${CARD.slice(0, 15)}1`, cardSecurityCode: "12345" }),
			() => client.checkout.create({ ...checkout, billingEmail: `${"x".repeat(300)}${PERSONAL.billingEmail}` }),
			// the forms no span covers: a DIRECT_POST form, an unsigned callback resolved by a query
			async () => client.checkout.directPost(checkout),
			() => client.callbacks.resolve(`https://shop.example/cb?status=successful&transactionId=${ids.transaction}`),
		];
		for (const responder of ECHOES) {
			for (const path of ["/v2/checkout", "/v2/card/api", "/v2/refund"]) {
				calls.push(() => {
					gateway.next(path, responder);
					if (path === "/v2/checkout") return client.checkout.create(checkout);
					if (path === "/v2/card/api") return client.card.charge(card);
					return client.refunds.create({ transactionId: ids.transaction, amount: 1, reason: echo.slice(0, 900) });
				});
			}
			// queries are retried: three echoes each (those left over go with the next reset)
			for (const path of ["/v2/checkout/query", "/v2/refund/query"]) {
				calls.push(() => {
					gateway.next(path, responder, responder, responder);
					return path === "/v2/refund/query"
						? client.refunds.retrieve(ids.refund)
						: client.transactions.retrieve(ids.transaction);
				});
			}
		}
		let failures = 0;
		for (const call of calls) {
			await call().catch(() => failures++);
			gateway.reset();
		}
		expect(failures).toBeGreaterThan(ECHOES.length * 4);

		// the paths really were recorded: a span per call, the gateway's refusals, retries and exceptions
		expect(otel.spans().length).toBeGreaterThan(ECHOES.length * 5);
		const everything = await expectNoSecrets();
		for (const expected of ["GatewayValidationError", "OutcomeUnknownError", "RequestValidationError", "exception"]) {
			expect(everything).toContain(expected);
		}
		expect(everything).toContain("merchant_gateway.retry");
		expect(everything).toContain("[redacted]");
		expect(everything).not.toContain('"orderDescription"');
	});

	test("the IPN handler and the reconciler: the same data in IPNs, queries and failing callbacks, nowhere", async () => {
		const before = otel.spans().length;
		// An IPN whose resource carries the cardholder's name and the merchant's metadata about the customer.
		const fields = {
			...transactionFields(),
			transactionId: ids.transaction,
			metadata: {
				customerEmail: PERSONAL.billingEmail,
				shippingAddress: PERSONAL.billingStreet1,
				customerPhone: PERSONAL.billingPhoneNumber,
			},
			paymentMethodDetails: {
				displayName: "Visa",
				card: { name: `${PERSONAL.billingFirstName} ${PERSONAL.billingLastName}`, lastFourDigits: "4242" },
			},
		};
		const ipn = createNotificationHandler({
			gatewayPublicKey,
			store: createMemoryStore(),
			onTransaction: failingCallback,
			onRefund: () => {},
		});
		expect((await ipn(ipnRequest(signedBody(fields)))).status).toBe(500);
		// Refused: a forgery carrying the same data, and a body that is no JSON but holds it.
		expect((await ipn(ipnRequest(signedBody(fields, "2.0", merchantPrivateKey)))).status).toBe(401);
		expect((await ipn(ipnRequest(`${echo}`))).status).toBe(400);

		// The reconciler: a transaction charged with the customer's data, its callback failing with it.
		const client = gateway.client();
		const charged = await client.card.charge(cardParams({ cardNumber: CARD, cardSecurityCode: CVV, ...PERSONAL }));
		const reconciler = createReconciler({
			gateway: client,
			store: createMemoryStore(),
			onTransaction: failingCallback,
			onRefund: () => {},
		});
		const report = await reconciler.reconcile({ transactions: [charged.transactionId] });
		expect(report.failed).toBe(1);

		const names = otel
			.spans()
			.slice(before)
			.map((span) => span.name);
		for (const name of ["ipn.handle", "reconcile", "reconcile.transaction", "transactions.retrieve"]) {
			expect(names).toContain(name);
		}
		const everything = await expectNoSecrets();
		// The callback's error is the merchant's own text: only its class name is recorded.
		expect(everything).toContain("(not recorded: the message of an error thrown outside the SDK)");
	});
});
