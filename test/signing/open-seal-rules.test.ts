import { describe, expect, it } from "vitest";
import { loadPublicKey, MalformedMessageError, SignatureVerificationError } from "../../src/index.js";
import { openMessage, openVerified, parseJsonObject, verifyingKeyIndex } from "../../src/signing/open.js";
import { sealMessage, signText } from "../../src/signing/seal.js";
import { keys } from "../support/vectors.js";

const signer = { privateKey: keys.gatewayPrivate };
const verify = { publicKey: keys.gatewayPublic };
const fields = { transactionId: "01JD5Z8Q4V7M1X2C3B4N5P6R7S", status: "successful", amount: 10.5 };

/** The error `run` throws, checked to be of `type`. */
function thrown<T extends Error>(run: () => unknown, type: new (...args: never[]) => T): T {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(type);
		return error as T;
	}
	throw new Error("expected a refusal");
}

const malformed = (run: () => unknown) => thrown(run, MalformedMessageError);
const unverified = (run: () => unknown) => thrown(run, SignatureVerificationError);

describe("a message that is not a signed form is refused, naming what and where", () => {
	it("bytes that are not UTF-8", () => {
		const error = malformed(() => openMessage(new Uint8Array([0x7b, 0xff, 0x7d]), verify));
		expect(error.message).toBe("The message is not valid UTF-8.");
	});

	it("text that is not JSON", () => {
		expect(malformed(() => openMessage("{not json", verify)).message).toBe("The message is not valid JSON.");
	});

	it.each(["[1,2]", "42", "null", '"text"'])("JSON text %s, which is no object", (text) => {
		expect(malformed(() => openMessage(text, verify)).message).toBe("The message must be a JSON object.");
	});

	it("a value that is no object and no text", () => {
		expect(malformed(() => openMessage(42, verify)).message).toBe("The message must be a JSON object.");
		expect(malformed(() => parseJsonObject([1], "callback body", "body")).field).toBe("body");
	});

	it("a 2.1 payload that is not a JSON object text, once verified", () => {
		const payload = "[1]";
		const message = { payload, signVersion: "2.1", signature: signText(payload, keys.gatewayPrivate) };
		const error = malformed(() => openMessage(JSON.stringify(message), verify));
		expect(error.message).toBe("The payload must be a JSON object.");
		expect(error.field).toBe("payload");
		const broken = { ...message, payload: "{", signature: signText("{", keys.gatewayPrivate) };
		expect(malformed(() => openMessage(broken, verify)).message).toBe("The payload is not valid JSON.");
	});

	it("a 2.1 payload with a lone surrogate, which has no UTF-8 bytes to verify", () => {
		const message = JSON.stringify({ payload: '{"a":"\ud800"}', signVersion: "2.1", signature: "AAAA" });
		const error = malformed(() => openMessage(message, verify));
		expect(error.message).toBe("The payload is not well-formed Unicode.");
		expect(error.field).toBe("payload");
	});

	it("a payload with a signVersion other than 2.1", () => {
		const sealed = sealMessage(fields, { ...signer, signVersion: "2.1" });
		const error = malformed(() => openMessage({ ...sealed, signVersion: "2.0" }, verify));
		expect(error.message).toBe('A message with a payload must have signVersion "2.1".');
		expect(error.field).toBe("signVersion");
	});

	it("a payload that is not a string", () => {
		const error = malformed(() => openMessage({ ...sealMessage(fields, signer), payload: 42 }, verify));
		expect(error.message).toBe("payload must be a JSON string.");
		expect(error.field).toBe("payload");
	});
});

describe("the signature's own refusals tell a missing one from a malformed one", () => {
	const sealed = sealMessage(fields, signer);

	it.each([null, ""])("%j is a missing signature", (signature) => {
		const error = unverified(() => openMessage({ ...sealed, signature }, verify));
		expect(error.reason).toBe("missing_signature");
		expect(error.message).toBe("The message has no signature; it cannot be trusted.");
	});

	it("a signature that is no string is malformed", () => {
		const error = unverified(() => openMessage({ ...sealed, signature: 12 }, verify));
		expect(error.reason).toBe("malformed_signature");
		expect(error.message).toBe("The signature must be a base64 string.");
	});

	it.each(["not base64!", "==", "\r\n"])("%j, which decodes to no bytes, is malformed, not a mismatch", (signature) => {
		const error = unverified(() => openMessage({ ...sealed, signature }, verify));
		expect(error.reason).toBe("malformed_signature");
		expect(error.message).toBe("The signature is not valid base64.");
	});

	it("a version not accepted is named with the accepted ones", () => {
		const error = unverified(() => openMessage(sealed, { ...verify, acceptVersions: ["2.1"] }));
		expect(error.reason).toBe("version_not_accepted");
		expect(error.message).toBe("Signing version 2.0 is not accepted here (accepted: 2.1).");
	});
});

describe("which form a message is read in", () => {
	it("a payload without signVersion is 2.1 (the payload says so)", () => {
		const { signVersion: _omitted, ...message } = sealMessage(fields, { ...signer, signVersion: "2.1" });
		expect(openVerified(JSON.stringify(message), verify)).toEqual({ fields, signVersion: "2.1", wrapper: undefined });
	});

	it("a 2.1 message with only a status, or only a message, beside its payload is a wrapped response", () => {
		const sealed = sealMessage(fields, { ...signer, signVersion: "2.1" });
		expect(openVerified({ ...sealed, status: "success" }, verify).wrapper).toEqual({
			status: "success",
			message: undefined,
		});
		expect(openVerified({ ...sealed, message: "done" }, verify).wrapper).toEqual({
			status: undefined,
			message: "done",
		});
	});

	it("an absent (undefined) payload in a 2.0 object is no payload", () => {
		const sealed = sealMessage(fields, signer);
		expect(openMessage({ ...sealed, payload: undefined }, verify)).toEqual(fields);
	});

	it("a flat 2.0 message with a data object among its signed fields stays flat", () => {
		const flat = { ...fields, data: { card: "visa" } };
		expect(openVerified(JSON.stringify(sealMessage(flat, signer)), verify)).toEqual({
			fields: flat,
			signVersion: "2.0",
		});
	});

	it("a 2.0 text is verified in the text's nested order, which JSON.parse loses for integer-like names", () => {
		// The gateway wrote "b" before "10"; JSON.parse lists "10" first.
		const text = '{"a":{"b":1,"10":2},"signature":"SIG"}';
		const signature = signText('{"a":{"b":"1","10":"2"}}', keys.gatewayPrivate);
		const message = text.replace("SIG", signature);
		expect(openMessage(message, verify)).toEqual({ a: { b: 1, "10": 2 } });
		expect(openMessage(new TextEncoder().encode(message), verify)).toEqual({ a: { b: 1, "10": 2 } });
		// The parsed object has lost that order: its own order is another signed string.
		expect(() => openMessage(JSON.parse(message), verify)).toThrow(SignatureVerificationError);
	});

	it("a parsed 2.0 object opens to its fields trimmed as signed, and the caller's object is left as it was", () => {
		const message = { ...sealMessage(fields, signer), status: " successful\n", nested: undefined };
		expect(openMessage(message, verify)).toEqual(fields);
		expect(message.status).toBe(" successful\n");
	});
});

describe("sealing refuses what it could not sign or a receiver could not open", () => {
	it.each([[[1]], ["text"], [null]])("%j is no message object", (value) => {
		const error = malformed(() => sealMessage(value as unknown as Record<string, unknown>, signer));
		expect(error.message).toBe("A message to seal must be a plain JSON object.");
	});

	it("a signVersion other than 2.0 or 2.1", () => {
		const options = { ...signer, signVersion: "3.0" as "2.0" };
		const error = malformed(() => sealMessage(fields, options));
		expect(error.message).toBe('signVersion must be "2.0" or "2.1".');
		expect(error.field).toBe("signVersion");
	});

	it("a 2.0 message with a string payload, which receivers would read as a 2.1 envelope", () => {
		const error = malformed(() => sealMessage({ ...fields, payload: "x" }, signer));
		expect(error.field).toBe("payload");
		expect(error.message).toBe(
			"A 2.0 message cannot carry a string field named payload: receivers would read it as a 2.1 envelope.",
		);
		expect(Object.keys(sealMessage({ ...fields, payload: 1 }, signer))).toContain("payload");
	});

	it("absent (undefined) fields are dropped from the sealed body", () => {
		const sealed = sealMessage({ ...fields, note: undefined }, signer);
		expect(Object.keys(sealed)).toEqual([...Object.keys(fields), "signature"]);
	});
});

describe("the doctor's question: which configured key verifies a signed string", () => {
	it("the index of the first key that verifies, or -1", () => {
		const signature = Buffer.from(signText("text", keys.gatewayPrivate), "base64");
		const gateway = loadPublicKey(keys.gatewayPublic);
		const merchant = loadPublicKey(keys.merchantPublic);
		expect(verifyingKeyIndex("text", signature, [merchant, gateway])).toBe(1);
		expect(verifyingKeyIndex("text", signature, [gateway, merchant])).toBe(0);
		expect(verifyingKeyIndex("other", signature, [merchant, gateway])).toBe(-1);
	});
});
