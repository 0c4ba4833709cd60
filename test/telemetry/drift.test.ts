import { expect, test } from "vitest";
import { STATUS_CODES } from "../../src/index.js";
import { findDrift } from "../../src/schemas/drift.js";
import { firstReports } from "../../src/schemas/drift-reports.js";
import { refundSchema, transactionSchema } from "../../src/schemas/resources.js";
import { checkoutCreatedFieldsSchema } from "../../src/schemas/responses.js";

import { checkoutCreated, refund, transaction } from "../support/gateway-messages.js";

test("every status of the catalogue, with its code, is no drift", () => {
	for (const [status, statusCode] of Object.entries(STATUS_CODES)) {
		const schema = status.startsWith("refund_") ? refundSchema : transactionSchema;
		const message = status.startsWith("refund_") ? refund() : transaction();
		expect(findDrift(schema.get(), { ...message, status, statusCode })).toEqual([]);
	}
	expect(findDrift(checkoutCreatedFieldsSchema.get(), checkoutCreated())).toEqual([]);
	expect(findDrift(transactionSchema.get(), { ...transaction(), signVersion: "2.0" })).toEqual([]);
});

test("unknown fields by their path: nested objects, array items, null and absent values", () => {
	const message = {
		...transaction(),
		paymentMethodDetails: { ...transaction().paymentMethodDetails, card: { type: "visa", issuerCountry: "NL" } },
		transactionDocuments: [
			{ type: "invoice", url: "https://shop.example/1", pages: 2 },
			{ type: "invoice", url: "https://shop.example/2", pages: 3 },
		],
		metadata: { anything: { goes: true } },
		descriptor: null,
		loyalty: { points: 10 },
	};
	expect(findDrift(transactionSchema.get(), message)).toEqual([
		{ type: "unknown_field", value: "transactionDocuments[].pages" },
		{ type: "unknown_field", value: "paymentMethodDetails.card.issuerCountry" },
		{ type: "unknown_field", value: "loyalty" },
	]);
});

test("field values are never reported, only names; a flood of unknown fields is cut", () => {
	const noisy = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`extra${index}`, "4111111111111111"]));
	const drifts = findDrift(refundSchema.get(), { ...refund(), ...noisy });
	expect(drifts).toHaveLength(20);
	expect(JSON.stringify(drifts)).not.toContain("4111");
});

test("each kind is reported once per process, whatever the message", () => {
	const drift = { type: "unknown_status", value: "chargeback_won" } as const;
	expect(firstReports("transactions.retrieve", [drift, drift])).toEqual([
		{ source: "transactions.retrieve", ...drift },
	]);
	expect(firstReports("transactions.retrieve", [drift])).toEqual([]);
	// Another source is another kind: the same status in an IPN is news there too.
	expect(firstReports("ipn.handle", [drift])).toHaveLength(1);
});

test("reported values are redacted and cut", () => {
	const [report] = firstReports("refunds.retrieve", [
		{ type: "unknown_status", value: `x@y.example ${"z".repeat(300)}` },
	]);
	expect(report?.value).toMatch(/^\[redacted\] z+$/);
	expect(report?.value.length).toBe(100);
});
