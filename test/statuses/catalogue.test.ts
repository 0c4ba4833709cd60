import { describe, expect, expectTypeOf, test } from "vitest";
import {
	codeOfStatus,
	type KnownRefundStatus,
	type KnownTransactionStatus,
	type RefundStatus,
	STATUS_CODES,
	statusFromCode,
	type TransactionStatus,
} from "../../src/index.js";
import { refundSchema, transactionSchema } from "../../src/schemas/resources.js";
import { refundStatuses, transactionStatuses } from "../../src/testing.js";
import { refund, transaction } from "../support/gateway-messages.js";

/** The gateway's status appendix (D8), as printed: code, status. */
const APPENDIX: readonly [number, string][] = [
	[1, "incomplete"],
	[2, "pending"],
	[3, "error"],
	[4, "failed"],
	[5, "under_review"],
	[6, "successful"],
	[7, "released"],
	[8, "refund_initiated"],
	[9, "refund_failed"],
	[10, "refund_under_review"],
	[11, "refund_successful"],
	[12, "refund_partially_failed"],
	[13, "refund_partially_successful"],
	[14, "canceled"],
	[15, "rejected"],
	[16, "expired"],
	[17, "documents_uploaded"],
	[18, "void_initiated"],
	[19, "void_under_review"],
	[20, "void_successful"],
	[21, "void_failed"],
	[22, "void_partially_successful"],
	[23, "void_partially_failed"],
];

describe("the status catalogue (D8)", () => {
	test("STATUS_CODES is the appendix: 23 statuses, codes 1 to 23, frozen", () => {
		expect(Object.entries(STATUS_CODES).map(([name, code]) => [code, name])).toEqual(APPENDIX);
		expect(Object.isFrozen(STATUS_CODES)).toBe(true);
	});

	test("statusFromCode and codeOfStatus are inverse lookups over the appendix", () => {
		for (const [code, name] of APPENDIX) {
			expect(statusFromCode(code)).toBe(name);
			expect(codeOfStatus(name)).toBe(code);
		}
	});

	test("names the gateway never sends are not in it: cancelled, declined, completed; nor unknown codes", () => {
		const invented = ["cancelled", "declined", "completed", "created", "awaiting_3ds", "refund_rejected"];
		for (const name of [...invented, "toString", "__proto__"]) {
			expect(codeOfStatus(name), name).toBeUndefined();
		}
		for (const code of [0, 24, 99, -1, 1.5, Number.NaN]) expect(statusFromCode(code), String(code)).toBeUndefined();
	});

	test("types: refund statuses are codes 8 to 13; both unions and the resources take any other string", () => {
		expectTypeOf<"refund_under_review">().toExtend<KnownRefundStatus>();
		expectTypeOf<"canceled">().toExtend<KnownTransactionStatus>();
		expectTypeOf<"void_failed">().toExtend<KnownTransactionStatus>();
		expectTypeOf<"chargeback_lost">().toExtend<TransactionStatus>();
		expectTypeOf<"chargeback_lost">().toExtend<RefundStatus>();
		expectTypeOf(transactionSchema.parse(transaction()).status).toEqualTypeOf<TransactionStatus>();
		expectTypeOf(refundSchema.parse(refund()).status).toEqualTypeOf<RefundStatus>();
		const refundCodes = Object.entries(STATUS_CODES).filter(([name]) => name.startsWith("refund_"));
		expect(refundCodes.map(([, code]) => code)).toEqual([8, 9, 10, 11, 12, 13]);
		// Resources keep every status, known or not, and never reject an unknown one.
		for (const status of ["canceled", "void_partially_failed", "chargeback_lost"]) {
			expect(transactionSchema.parse({ ...transaction(), status, statusCode: 99 }).status).toBe(status);
			expect(refundSchema.parse({ ...refund(), status, statusCode: 99 }).status).toBe(status);
		}
	});

	test("the sandbox's statuses are catalogue names with the catalogue's codes", () => {
		for (const [name, { code }] of Object.entries({ ...transactionStatuses, ...refundStatuses })) {
			expect(codeOfStatus(name), name).toBe(code);
		}
		const used = ["canceled", "expired", "failed", "incomplete", "pending", "successful"];
		expect(Object.keys(transactionStatuses).sort()).toEqual(used);
		expect(Object.keys(refundStatuses).sort()).toEqual(["refund_failed", "refund_successful", "refund_under_review"]);
	});
});
