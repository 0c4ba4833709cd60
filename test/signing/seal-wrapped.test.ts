import { describe, expect, test } from "vitest";
import { openVerified } from "../../src/signing/open.js";
import { sealWrapped } from "../../src/signing/seal.js";
import { keys } from "../support/vectors.js";

describe("sealWrapped: the wrapped form of the gateway's responses, read back by openVerified", () => {
	const data = { refundId: "01JD60BBBBBBBBBBBBBBBBBBBB", refundNumber: "RF-1", nested: { b: 1, a: [2, 3] } };

	test("2.0: status and message around a signed data object", () => {
		const sealed = sealWrapped("success", "Refund created", data, { privateKey: keys.gatewayPrivate });
		expect(Object.keys(sealed)).toEqual(["status", "message", "data"]);
		const opened = openVerified(JSON.stringify(sealed), { publicKey: keys.gatewayPublic });
		expect(opened).toEqual({
			fields: data,
			signVersion: "2.0",
			wrapper: { status: "success", message: "Refund created" },
		});
	});

	test("2.1: status and message beside the signed payload", () => {
		const options = { privateKey: keys.gatewayPrivate, signVersion: "2.1" } as const;
		const sealed = sealWrapped("pending", null, data, options);
		expect(Object.keys(sealed)).toEqual(["status", "message", "payload", "signVersion", "signature"]);
		const opened = openVerified(JSON.stringify(sealed), { publicKey: keys.gatewayPublic });
		expect(opened).toEqual({ fields: data, signVersion: "2.1", wrapper: { status: "pending", message: null } });
	});

	test("status and message are not signed: changing them still verifies, changing data does not", () => {
		const sealed = sealWrapped("success", null, data, { privateKey: keys.gatewayPrivate }) as Record<string, unknown>;
		const relabelled = { ...sealed, status: "failed" };
		expect(openVerified(JSON.stringify(relabelled), { publicKey: keys.gatewayPublic }).wrapper?.status).toBe("failed");
		const tampered = { ...sealed, data: { ...(sealed.data as object), refundNumber: "RF-2" } };
		expect(() => openVerified(JSON.stringify(tampered), { publicKey: keys.gatewayPublic })).toThrow(/signature/i);
	});
});
