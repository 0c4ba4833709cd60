import { describe, expect, it, vi } from "vitest";
import {
	createNotificationHandler,
	decodeCallback,
	InvalidNotificationError,
	MalformedMessageError,
	SignatureVerificationError,
	type SignedStringForm,
	verifyNotification,
} from "../../src/index.js";
import { referenceFormOfText } from "../../src/signing/canonical.js";
import { openMessage } from "../../src/signing/index.js";
import { signText } from "../../src/signing/seal.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { sortedStringify } from "../support/forms.js";
import { keys, vector } from "../support/vectors.js";
import { gatewayPublicKey, ipnRequest, transactionFields } from "./fixtures.js";

const PHP_TRIM_SET = [" ", "\t", "\n", "\r", "\0", "\x0B"];

/** Different texts of one signed IPN: each signed string value in turn padded with PHP-trimmable characters. */
function paddedReplays(text: string, count: number): string[] {
	const message = JSON.parse(text) as Record<string, unknown>;
	const strings = Object.keys(message).filter((key) => key !== "signature" && typeof message[key] === "string");
	return Array.from({ length: count }, (_, i) => {
		const key = strings[i % strings.length] as string;
		const round = Math.floor(i / strings.length);
		// A distinct padding per round: which trimmable character, and how many of it.
		const pad = (PHP_TRIM_SET[round % PHP_TRIM_SET.length] as string).repeat(
			1 + Math.floor(round / PHP_TRIM_SET.length),
		);
		const padded = i % 2 === 0 ? `${pad}${message[key]}` : `${message[key]}${pad}`;
		return JSON.stringify({
			...message,
			[key]: padded,
			...(key !== "status" && i % 3 === 0 ? { status: ` ${message.status}` } : {}),
		});
	});
}

describe("padded replays of one signed IPN are the same event", () => {
	const original = vector("transaction-ipn-2.0").message as string;

	it("each padded variant still verifies (the signed string trims) and is handed out trimmed", () => {
		for (const body of paddedReplays(original, 30)) {
			const event = verifyNotification(body, { gatewayPublicKey });
			expect(event.eventId).toBe("transaction:01k0svjxa7rxj0wwz0cqb85r6a:successful");
			expect(event.type === "transaction" && event.transaction).toEqual(vector("transaction-ipn-2.0").opened);
		}
	});

	it("200 variants delivered to the handler: one callback run, 200 acknowledgements of 100", async () => {
		const onTransaction = vi.fn(async (_transaction: unknown) => {});
		const handler = createNotificationHandler({ gatewayPublicKey, onTransaction, onRefund: vi.fn() });
		const bodies = [original, ...paddedReplays(original, 199)];
		expect(new Set(bodies).size).toBe(200);
		const acknowledgements = await Promise.all(bodies.map(async (body) => (await handler(ipnRequest(body))).json()));
		expect(acknowledgements.every((acknowledgement) => acknowledgement.returnCode === "100")).toBe(true);
		expect(onTransaction).toHaveBeenCalledTimes(1);
		expect(onTransaction.mock.calls[0]?.[0]).toEqual(vector("transaction-ipn-2.0").opened);
	});
});

describe("a custom 2.0 signed-string form (signedString option)", () => {
	const fields = { ...transactionFields(), transactionId: "01k0svjxa7rxj0wwz0cqb85r6b" };
	const sign = (text: string) => {
		const { createSign } = process.getBuiltinModule("node:crypto");
		return createSign("md5").update(text).sign(keys.gatewayPrivate, "base64");
	};
	const body = JSON.stringify({ ...fields, signature: sign(sortedStringify(fields)) });

	it("verifyNotification and the handler accept it only when told the form", async () => {
		expect(() => verifyNotification(body, { gatewayPublicKey })).toThrow(SignatureVerificationError);
		const event = verifyNotification(body, { gatewayPublicKey, signedString: sortedStringify });
		expect(event.eventId).toBe("transaction:01k0svjxa7rxj0wwz0cqb85r6b:successful");

		const onTransaction = vi.fn(async () => {});
		const strict = createNotificationHandler({ gatewayPublicKey, onTransaction, onRefund: vi.fn() });
		expect((await strict(ipnRequest(body))).status).toBe(401);
		const custom = createNotificationHandler({
			gatewayPublicKey,
			onTransaction,
			onRefund: vi.fn(),
			signedString: sortedStringify,
		});
		expect((await custom(ipnRequest(body))).status).toBe(200);
		expect(onTransaction).toHaveBeenCalledTimes(1);
	});

	it("decodeCallback accepts a callback signed that way only when told the form", () => {
		const callback = {
			status: "successful",
			transactionId: fields.transactionId,
			ref: "ORD-1",
			amount: 10.5,
			currency: "EUR",
		};
		const url = sealCallbackUrl("https://shop.example/done", callback, {
			privateKey: keys.gatewayPrivate,
			signedString: sortedStringify,
		});
		expect(() => decodeCallback(url, { gatewayPublicKey })).toThrow(SignatureVerificationError);
		expect(decodeCallback(url, { gatewayPublicKey, signedString: sortedStringify })).toEqual(callback);
	});

	it("the handler refuses a signedString that is not a function", () => {
		const options = {
			gatewayPublicKey,
			onTransaction: vi.fn(),
			onRefund: vi.fn(),
			signedString: "php" as unknown as SignedStringForm,
		};
		expect(() => createNotificationHandler(options)).toThrow(/signedString: must be a function/);
	});
});

describe("2.1 payloads must be well-formed Unicode (D4)", () => {
	it("a payload with a lone surrogate is refused before verifying, as malformed, not as a bad signature", () => {
		const signature = JSON.parse(vector("transaction-ipn-2.1").message as string).signature;
		const body = JSON.stringify({ payload: '{"ref":"\ud800"}', signVersion: "2.1", signature });
		expect(() => openMessage(body, { publicKey: gatewayPublicKey })).toThrow(MalformedMessageError);
		expect(() => openMessage(body, { publicKey: gatewayPublicKey })).toThrow(/not well-formed Unicode/);
		expect(() => verifyNotification(body, { gatewayPublicKey })).toThrow(InvalidNotificationError);
	});
});

describe("a signed number that no JavaScript number holds exactly (literalSensitive)", () => {
	/** A 2.0 IPN text as the gateway's PHP writes and signs it, with `literal` as a metadata value. */
	function gatewayText(literal: string): string {
		const fields = JSON.stringify({ ...transactionFields(), metadata: { orderNumber: 1 } }).replace(
			'"orderNumber":1',
			`"orderNumber":${literal}`,
		);
		const signedString = referenceFormOfText(fields);
		return `${fields.slice(0, -1)},"signature":"${signText(signedString, keys.gatewayPrivate)}"}`;
	}

	// The vectors' literalSensitive rule: such a message verifies from its text, and its numbers
	// come back as numbers (the nearest JavaScript number), as JSON.parse of the fields gives them.
	it.each(["9007199254740993", "12345678901234567", "-9223372036854775807", "1.0e+14", "1.0e+17", "-0.0"])(
		"%s verifies from the text only, and is handed out as the nearest JavaScript number",
		(literal) => {
			const text = gatewayText(literal);
			const opened = openMessage(text, { publicKey: gatewayPublicKey });
			expect((opened.metadata as Record<string, unknown>).orderNumber).toBe(Number(literal));
			expect(() => openMessage(JSON.parse(text), { publicKey: gatewayPublicKey })).toThrow(SignatureVerificationError);
			expect(verifyNotification(text, { gatewayPublicKey }).type).toBe("transaction");
		},
	);

	it.each(["9007199254740992", "1.0e+13", "1.0e+21", "12345678901234567890", "0.30000000000000004", "-0", "1E+2"])(
		"%s is handed out as the number it signs as",
		(literal) => {
			const opened = openMessage(gatewayText(literal), { publicKey: gatewayPublicKey });
			expect((opened.metadata as Record<string, unknown>).orderNumber).toBe(Number(literal));
		},
	);
});
