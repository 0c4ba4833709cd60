import type { Attributes } from "@opentelemetry/api";
import { afterEach, beforeEach, expect, test } from "vitest";
import { createMemoryStore, createNotificationHandler } from "../../src/index.js";
import { useGateway } from "../client/gateway.js";
import { checkoutParams } from "../client/helpers.js";
import {
	gatewayPublicKey,
	ipnRequest,
	refundFields,
	signedBody,
	transactionFields,
} from "../notifications/fixtures.js";
import { checkoutCreated, ids, signedFlat, transaction } from "../support/gateway-messages.js";
import { type RecordedTelemetry, recordTelemetry } from "../support/otel.js";

// A span or metric attribute carries a value from a closed set or an identifier of its documented shape,
// nothing else: signed messages (IPNs, the gateway's responses) may carry a card number or an email in any
// field the schemas leave free (a status, an id), and the signature says only that the gateway sent it.

const CARD = "4111111111111111";
const EMAIL = "zelphine.q@mailbox.example";
/** A status as a gateway might echo it, the card number spaced and followed by its expiry. */
const HOSTILE_STATUS = "held: 4111 1111 1111 1111 12 39";

const gateway = useGateway();
let otel: RecordedTelemetry;
beforeEach(() => {
	otel = recordTelemetry();
	otel.instrument();
});
afterEach(() => otel.shutdown());

/** Every attribute value recorded (spans, their events, metric points), spaces and dashes removed. */
async function recordedValues(): Promise<string[]> {
	const values: string[] = [];
	const collect = (attributes: Attributes | undefined) => {
		for (const value of Object.values(attributes ?? {})) values.push(String(value).replace(/[\s-]/g, ""));
	};
	for (const span of otel.spans()) {
		collect(span.attributes);
		for (const event of span.events) collect(event.attributes);
	}
	for (const metric of (await otel.metrics()).values())
		for (const point of metric.dataPoints) collect(point.attributes);
	return values;
}

async function expectNoCardOrEmail(): Promise<void> {
	const values = await recordedValues();
	expect(values.length).toBeGreaterThan(10);
	for (const value of values) {
		expect(value).not.toContain(CARD);
		expect(value.toLowerCase()).not.toContain(EMAIL);
	}
}

test("signed IPNs carrying a card number and an email as their status and ids: markers, never the values", async () => {
	const ipn = createNotificationHandler({
		gatewayPublicKey,
		store: createMemoryStore(),
		onTransaction: () => {},
		onRefund: () => {},
	});
	const hostileTransaction = { ...transactionFields(), transactionId: CARD, status: HOSTILE_STATUS };
	const hostileRefund = { ...refundFields(), refundId: EMAIL, transactionId: `${CARD}:${EMAIL}` };
	expect((await ipn(ipnRequest(signedBody(hostileTransaction)))).status).toBe(200);
	expect((await ipn(ipnRequest(signedBody(hostileRefund)))).status).toBe(200);

	const [transactionSpan, refundSpan] = otel.spans();
	expect(transactionSpan?.attributes).toMatchObject({
		"merchant_gateway.status": "_OTHER",
		"merchant_gateway.transaction_id": "_OTHER",
		"merchant_gateway.event_id": "transaction:_OTHER:_OTHER",
	});
	expect(refundSpan?.attributes).toMatchObject({
		"merchant_gateway.refund_id": "_OTHER",
		"merchant_gateway.transaction_id": "_OTHER",
		"merchant_gateway.status": "refund_successful",
	});
	const drift = transactionSpan?.events.find((event) => event.name === "merchant_gateway.drift");
	expect(drift?.attributes?.["merchant_gateway.drift.value"]).toBe("_OTHER");
	await expectNoCardOrEmail();
});

test("a gateway echoing the card number as transactionId and status: the client's span and drift carry markers", async () => {
	const client = gateway.client();
	gateway.next("/v2/checkout", () => Response.json(signedFlat(checkoutCreated(CARD), "2.0")));
	const session = await client.checkout.create(checkoutParams());
	expect(session.transactionId).toBe(CARD);
	gateway.next("/v2/checkout/query", () =>
		Response.json(signedFlat({ ...transaction(ids.transaction), status: HOSTILE_STATUS }, "2.0")),
	);
	expect((await client.transactions.retrieve(ids.transaction)).status).toBe(HOSTILE_STATUS);

	const [created, retrieved] = otel.spans();
	expect(created?.attributes["merchant_gateway.transaction_id"]).toBe("_OTHER");
	expect(retrieved?.attributes["merchant_gateway.transaction_id"]).toBe(ids.transaction);
	const drift = retrieved?.events.find((event) => event.name === "merchant_gateway.drift");
	expect(drift?.attributes?.["merchant_gateway.drift.value"]).toBe("_OTHER");
	const reports = (await otel.metrics()).get("merchant_gateway.drift.reports");
	expect(reports?.dataPoints.map((point) => point.attributes["merchant_gateway.drift.value"])).toContain("_OTHER");
	await expectNoCardOrEmail();
});
