// What a failed event's record says: its lastError names the error's class (a label an operator can search
// for) and never its stack; a record that cannot be replayed is refused with the reason and the verification's
// own error as the cause.
import { describe, expect, it } from "vitest";
import { ReplayRefusedError, SignatureVerificationError } from "../../src/index.js";
import { describeFailure, replayedEvent, signedMessage } from "../../src/notifications/claims/failed-event-record.js";
import { gatewayPublicKey, signedBody, transactionFields, transactionIpn } from "./fixtures.js";

describe("a failed event's lastError", () => {
	it("names the error's class, and its name only when that says more than the class", () => {
		class ErpError extends Error {}
		const timeout = new DOMException("no answer", "TimeoutError");
		const renamed = Object.assign(new TypeError("locked"), { name: "" });
		expect(describeFailure(new ErpError("refused"))).toBe("ErpError: refused");
		expect(describeFailure(timeout)).toBe("DOMException (TimeoutError): no answer");
		expect(describeFailure(renamed)).toBe("TypeError: locked");
		expect(describeFailure({ name: 7, message: "odd" })).toBe("Object: odd");
	});

	it("an object without a usable class name is labelled Error; one without a message is its label alone", () => {
		expect(describeFailure(Object.assign(Object.create(null), { message: "bare" }))).toBe("Error: bare");
		expect(describeFailure({ constructor: { name: 42 }, message: "numbered" })).toBe("Error: numbered");
		expect(describeFailure({ constructor: { name: "" }, message: "anonymous" })).toBe("Error: anonymous");
		expect(describeFailure({})).toBe("Object: ");
	});

	it("a thrown value that is not an object is its type and its text", () => {
		expect(describeFailure("stock service down")).toBe("string: stock service down");
		expect(describeFailure(null)).toBe("object: null");
		expect(describeFailure(undefined)).toBe("undefined: undefined");
	});

	it("an error of 1000 characters, or one a redaction brings under 1000, is kept whole", () => {
		const words = `${"word ".repeat(198)}end`;
		expect(describeFailure(new Error(words))).toBe(`Error: ${words}`);
		const key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(40);
		expect(describeFailure(new Error(`key ${key} rejected`))).toBe("Error: key [redacted key] rejected");
	});

	it("an error up to 3048 characters is redacted whole: after a key it shows up to the 1000-character limit", () => {
		const key = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC".repeat(40);
		const message = `key ${key} rejected; ${"more ".repeat(1000)}`.slice(0, 3048 - "Error: ".length);
		const stored = describeFailure(new Error(message));
		expect(stored.startsWith("Error: key [redacted key] rejected; more more")).toBe(true);
		expect(stored).toHaveLength(1000);
	});
});

describe("a record that cannot be replayed", () => {
	const options = { gatewayPublicKey };
	const eventId = "transaction:t-rec:successful";
	const refusal = (message: string) => {
		try {
			replayedEvent(eventId, message, options);
		} catch (error) {
			if (error instanceof ReplayRefusedError) return error;
			throw error;
		}
		throw new Error("not refused");
	};

	it("a record without a signed message is refused as unsigned, with no cause", () => {
		for (const message of ["", "null", "{}", JSON.stringify({ signed: 5 })]) {
			const error = refusal(message);
			expect(error.reason).toBe("unsigned");
			expect(error.message).toBe(
				"The failed event's record keeps no signed message (a reconciliation's, or one kept before records had it); " +
					"it is not replayed.",
			);
			expect(error.cause).toBeUndefined();
		}
	});

	it("a signed message that does not verify is refused with the verification's error as its cause", () => {
		const forged = signedMessage(transactionIpn("T-REC").replace('"amount":', '"amount":1'));
		const error = refusal(forged);
		expect(error.reason).toBe("signature");
		expect(error.cause).toBeInstanceOf(SignatureVerificationError);
		expect(error.message).toMatch(/^The failed event's signed message does not verify; it is not replayed\. \S/);
	});

	it("a signed message that verifies but is not a valid IPN is refused as invalid", () => {
		const error = refusal(signedMessage(signedBody({ ...transactionFields(), transactionId: "T-REC", amount: "x" })));
		expect(error.reason).toBe("invalid");
		expect(error.message).toMatch(/^The failed event's signed message is not a valid IPN; it is not replayed\. \S/);
	});

	it("a signed message of another event is refused as other_event", () => {
		const error = refusal(signedMessage(transactionIpn("T-OTHER")));
		expect(error.reason).toBe("other_event");
		expect(error.message).toBe(
			"The failed event's signed message verifies, but is another event than its record is kept under; it is not replayed.",
		);
		expect(replayedEvent(eventId, signedMessage(transactionIpn("T-REC")), options).eventId).toBe(eventId);
	});
});
