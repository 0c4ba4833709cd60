import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
	flatStringifiedForm,
	InvalidKeyError,
	MalformedMessageError,
	nodeSnippetForm,
	retiredFirstDraftForm,
	type SignedStringForm,
} from "../../src/index.js";
import {
	canonicalString,
	diagnoseSignature,
	openCallbackUrl,
	openMessage,
	type SignatureFormName,
	sealMessage,
} from "../../src/signing/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keys, sharedVectorsDir, signerKeys, vectors } from "../support/vectors.js";
import { pemBody } from "./key-fixtures.js";

/** A transaction IPN on which the four 2.0 forms all make different strings (test/signing/forms.test.ts). */
const fields = {
	transactionId: "01k0svjxa7rxj0wwz0cqb85r6a",
	ref: "order/1",
	status: " successful ",
	statusCode: 6,
	amount: 10.5,
	currency: "EUR",
	message: null,
	Zeta: "z",
	fees: { operate: 1.5, buyer: " 0 ", seller: null },
	name: "Zoë",
	items: [1, "x"],
};

interface Way {
	form: SignatureFormName;
	/** What a merchant passes as `signedString` for it. */
	exportName?: string;
	signedString?: SignedStringForm;
	/** The string the signer signed. */
	expected: (fields: Record<string, unknown>) => string;
}

const ways: Way[] = [
	{ form: "reference", expected: canonicalString },
	{ form: "payload-2.1", expected: (f) => JSON.stringify(f) },
	{ form: "node-snippet", exportName: "nodeSnippetForm", signedString: nodeSnippetForm, expected: nodeSnippetForm },
	{
		form: "flat-stringified",
		exportName: "flatStringifiedForm",
		signedString: flatStringifiedForm,
		expected: flatStringifiedForm,
	},
	{
		form: "retired-first-draft",
		exportName: "retiredFirstDraftForm",
		signedString: retiredFirstDraftForm,
		expected: retiredFirstDraftForm,
	},
];

const sealOptions = (way: Way, privateKey = keys.gatewayPrivate) =>
	way.form === "payload-2.1"
		? { privateKey, signVersion: "2.1" as const }
		: { privateKey, signedString: way.signedString };

/** The message as each merchant code path holds it: raw text, bytes, a parsed body, a callback, a wrapped response. */
function shapes(way: Way, privateKey?: string) {
	const sealed = sealMessage(fields, sealOptions(way, privateKey));
	const body = JSON.stringify(sealed);
	const wrapped = JSON.stringify(
		way.form === "payload-2.1"
			? { status: "success", message: "The transaction has been successfully completed.", ...sealed }
			: { status: "success", message: "The transaction has been successfully completed.", data: sealed },
	);
	const url = sealCallbackUrl("https://shop.example/return?order=1", fields, sealOptions(way, privateKey));
	return [
		{ shape: "IPN text", input: body, expectShape: "flat", readFrom: "text" },
		{ shape: "IPN bytes", input: new TextEncoder().encode(body), expectShape: "flat", readFrom: "text" },
		{ shape: "parsed IPN", input: JSON.parse(body), expectShape: "flat", readFrom: "object" },
		{ shape: "callback URL", input: url, expectShape: "callback", readFrom: "text" },
		{
			shape: "callback query object",
			input: Object.fromEntries(new URL(url).searchParams),
			expectShape: "callback",
			readFrom: "text",
		},
		{ shape: "wrapped response text", input: wrapped, expectShape: "wrapped", readFrom: "text" },
		{ shape: "parsed wrapped response", input: JSON.parse(wrapped), expectShape: "wrapped", readFrom: "object" },
	] as const;
}

const cases = ways.flatMap((way) => shapes(way).map((s) => [way.form, s.shape, way, s] as const));

describe("diagnoseSignature names the form a message was signed in", () => {
	it.each(cases)("%s, %s", (_, __, way, shape) => {
		const report = diagnoseSignature(shape.input, { publicKey: keys.gatewayPublic });
		expect(report.verified).toBe(true);
		expect(report.form).toBe(way.form);
		expect(report.verifiedBy).toEqual([way.form]);
		expect(report.likelyCauses).toEqual([]);
		expect(report.message).toEqual({
			shape: shape.expectShape,
			signVersion: way.form === "payload-2.1" ? "2.1" : "2.0",
			readFrom: shape.readFrom,
			signature: "present",
		});
		const winner = report.attempts.find((a) => a.verified);
		expect(winner).toMatchObject({ form: way.form, keyIndex: 0, signedString: way.expected(fields) });
		// The other forms were tried too, each with its own string.
		if (way.form !== "payload-2.1") {
			expect(report.attempts.map((a) => a.form)).toEqual([
				"reference",
				"node-snippet",
				"flat-stringified",
				"retired-first-draft",
			]);
			expect(new Set(report.attempts.map((a) => a.signedString)).size).toBe(4);
		}
	});

	it.each(ways.filter((w) => w.exportName !== undefined).map((w) => [w.form, w] as const))(
		"%s: the advice names the export and every place it goes, and following it verifies the message",
		(_, way) => {
			const [text, , , callback] = shapes(way);
			const report = diagnoseSignature(text.input, { publicKey: keys.gatewayPublic });
			for (const place of [
				"new GatewayClient(",
				"createNotificationHandler(",
				"verifyNotification(",
				"decodeCallback(",
			]) {
				expect(report.advice).toContain(`${place}`);
			}
			expect(report.advice).toContain(`import { ${way.exportName} } from "merchant-gateway";`);
			expect(report.advice?.match(new RegExp(`signedString: ${way.exportName} }`, "g"))).toHaveLength(4);
			const signedString = { nodeSnippetForm, flatStringifiedForm, retiredFirstDraftForm }[
				way.exportName as "nodeSnippetForm"
			];
			expect(openMessage(text.input, { publicKey: keys.gatewayPublic, signedString })).toMatchObject({
				status: "successful",
			});
			expect(openCallbackUrl(callback.input, { publicKey: keys.gatewayPublic, signedString }).fields).toMatchObject({
				ref: "order/1",
			});
		},
	);

	it("the reference form needs no configuration; from a parsed object the advice asks for the raw body", () => {
		const [text, , parsed] = shapes(ways[0] as Way);
		const fromText = diagnoseSignature(text.input, { publicKey: keys.gatewayPublic });
		expect(fromText.advice).toMatch(/^Nothing to configure/);
		expect(fromText.advice).not.toContain("raw body");
		expect(diagnoseSignature(parsed.input, { publicKey: keys.gatewayPublic }).advice).toContain(
			"give the SDK the raw body",
		);
	});

	it('2.1: the advice says signVersion: "2.1" for the client', () => {
		const [text] = shapes(ways[1] as Way);
		expect(diagnoseSignature(text.input, { publicKey: keys.gatewayPublic }).advice).toContain('signVersion: "2.1"');
	});

	it("says which key of a rotation verifies", () => {
		const [text] = shapes(ways[0] as Way);
		const report = diagnoseSignature(text.input, { publicKey: [keys.merchantPublic, keys.gatewayPublic] });
		expect(report.attempts[0]).toMatchObject({ verified: true, keyIndex: 1 });
		expect(report.keyBits).toEqual([2048, 2048]);
	});

	it("a form that cannot make a string for the message reports why and the others are still tried", () => {
		const body = JSON.stringify(
			sealMessage(
				{ status: "successful", note: "\ud800" },
				{ privateKey: keys.gatewayPrivate, signedString: nodeSnippetForm },
			),
		);
		const report = diagnoseSignature(body, { publicKey: keys.gatewayPublic });
		expect(report.form).toBe("node-snippet");
		expect(report.attempts[0]).toMatchObject({
			form: "reference",
			verified: false,
			error: expect.stringMatching(/note.*lone surrogate/),
		});
		expect(report.attempts[0]?.signedString).toBeUndefined();
	});

	it("forms making the same string for a message are marked; the advice says it cannot tell them apart", () => {
		// Top-level lowercase ASCII strings only: the node snippet and the retired form agree here.
		const plain = { status: "successful", ref: "a" };
		const body = JSON.stringify(sealMessage(plain, { privateKey: keys.gatewayPrivate, signedString: nodeSnippetForm }));
		const report = diagnoseSignature(body, { publicKey: keys.gatewayPublic });
		expect(report.form).toBe("reference");
		expect(report.verifiedBy).toEqual(["reference", "node-snippet", "flat-stringified", "retired-first-draft"]);
		expect(report.attempts.slice(1).map((a) => a.sameStringAs)).toEqual(["reference", "reference", "reference"]);
		const nested = { status: "successful", n: { a: true } };
		const retiredBody = JSON.stringify(
			sealMessage(nested, { privateKey: keys.gatewayPrivate, signedString: retiredFirstDraftForm }),
		);
		const both = diagnoseSignature(retiredBody, { publicKey: keys.gatewayPublic });
		expect(both.verifiedBy).toEqual(["node-snippet", "retired-first-draft"]);
		expect(both.advice).toContain("For this message retired-first-draft makes the same string and verifies too");
	});
});

describe("when nothing verifies", () => {
	it.each(ways.flatMap((way) => shapes(way, keys.merchantPrivate).map((s) => [way.form, s.shape, s] as const)))(
		"%s signed with another key, %s: none verify, the wrong key comes first among the causes",
		(_, __, shape) => {
			const report = diagnoseSignature(shape.input, { publicKey: keys.gatewayPublic });
			expect(report.verified).toBe(false);
			expect(report.form).toBeUndefined();
			expect(report.verifiedBy).toEqual([]);
			expect(report.advice).toBeUndefined();
			expect(report.attempts.every((a) => !a.verified && typeof a.signedString === "string")).toBe(true);
			expect(report.likelyCauses[0]).toMatch(/^The message was signed by another key than the one\(s\) given/);
			expect(report.likelyCauses.join("\n")).toContain("The message was tampered with or forged");
			expect(report.likelyCauses.at(-1)).toMatch(/ask its support for the exact string/);
			if (shape.readFrom === "object") expect(report.likelyCauses.join("\n")).toContain("Give the raw body");
		},
	);

	it("a changed body: the re-serialized text, tampering or forgery, and another key are named as causes", () => {
		const body = JSON.stringify(sealMessage(fields, { privateKey: keys.gatewayPrivate })).replace("EUR", "USD");
		const report = diagnoseSignature(body, { publicKey: keys.gatewayPublic });
		expect(report.verified).toBe(false);
		const causes = report.likelyCauses.join("\n");
		expect(causes).toContain("The text is not the body as the gateway sent it");
		expect(causes).toContain(
			"The message was tampered with or forged: a field (an amount, a status) was changed after the gateway " +
				"signed it, or someone without the gateway's private key made it up. Never act on it",
		);
		expect(causes).toContain("The message was signed by another key than the one(s) given");
	});

	it.each([
		[
			"a 2.1 message",
			() => JSON.stringify(sealMessage(fields, { privateKey: keys.merchantPrivate, signVersion: "2.1" })),
		],
		["a callback", () => sealCallbackUrl("https://shop.example/return", fields, { privateKey: keys.merchantPrivate })],
	])("%s no key verifies: tampering or forgery and another key are named too", (_, message) => {
		const report = diagnoseSignature(message(), { publicKey: keys.gatewayPublic });
		expect(report.verified).toBe(false);
		const causes = report.likelyCauses.join("\n");
		expect(causes).toContain("The message was tampered with or forged");
		expect(causes).toContain("The message was signed by another key than the one(s) given");
	});

	it("a cut signature: its length is named", () => {
		const sealed = sealMessage(fields, { privateKey: keys.gatewayPrivate });
		const cut = { ...sealed, signature: Buffer.from(sealed.signature, "base64").subarray(0, 128).toString("base64") };
		const report = diagnoseSignature(JSON.stringify(cut), { publicKey: keys.gatewayPublic });
		expect(report.likelyCauses[0]).toMatch(
			/^The signature has 128 bytes, but the key\(s\) given \(2048 bits\) make 256-byte signatures/,
		);
	});

	it("an unsigned callback: the way out is a verified transaction query (D5)", () => {
		const payload = Buffer.from(JSON.stringify({ status: "successful", ref: "o-1" })).toString("base64");
		const unsigned = `https://shop.example/return?payload=${payload}`;
		const report = diagnoseSignature(unsigned, { publicKey: keys.gatewayPublic });
		expect(report.message).toMatchObject({ shape: "callback", signature: "missing" });
		expect(report.likelyCauses).toEqual([expect.stringContaining("verified transaction query")]);
		expect(report.attempts.map((a) => a.form)).toEqual([
			"reference",
			"node-snippet",
			"flat-stringified",
			"retired-first-draft",
		]);
	});

	it("a signature that is not base64 is called malformed", () => {
		const report = diagnoseSignature(JSON.stringify({ status: "successful", signature: "***" }), {
			publicKey: keys.gatewayPublic,
		});
		expect(report.message.signature).toBe("malformed");
		expect(report.likelyCauses[0]).toMatch(/^The signature is not base64/);
	});
});

describe("what the report shows is redacted", () => {
	const derKey = pemBody(keys.merchantPrivate);
	const charge = {
		cardNumber: "4111111111111112",
		cardSecurityCode: "123",
		card: { cardNumber: "4000000000001018", cardSecurityCode: "987", cvv: 654 },
		blob: derKey,
		pem: keys.merchantPrivate,
		ref: "o-1",
		saveCard: true,
	};

	it.each(ways.map((w) => [w.form, w] as const))(
		"%s: no card number, CVV or key material in any signed string",
		(_, way) => {
			const body = JSON.stringify(sealMessage(charge, sealOptions(way)));
			const report = diagnoseSignature(body, { publicKey: keys.gatewayPublic });
			expect(report.form).toBe(way.form);
			const shown = JSON.stringify(report);
			expect(report.attempts.some((a) => a.signedString?.includes("[redacted key]"))).toBe(true);
			for (const secret of [
				"4111111111111112",
				"4000000000001018",
				"PRIVATE KEY",
				derKey.slice(100, 160),
				derKey.slice(-60, -2),
			]) {
				expect(shown).not.toContain(secret);
			}
			expect(shown).not.toMatch(/cardSecurityCode\\*":\\*"?(123|987)/);
			expect(shown).not.toMatch(/cvv\\*":\\*"?654/);
			expect(report.attempts.find((a) => a.verified)?.signedString).toContain("411111******1112");
		},
	);
});

describe("input the doctor refuses, with typed errors", () => {
	it.each([
		["a JSON array", "[1,2]"],
		["text that is neither JSON nor a callback", "hello"],
		["a number", 42],
		["a callback whose payload is not base64", "https://shop.example/r?payload=***"],
		["JSON text that is cut", '{"status":"successful"'],
		["a 2.0 message whose payload is not a string", { payload: 1, signature: "x" }],
	])("%s", (_, input) => {
		expect(() => diagnoseSignature(input as string, { publicKey: keys.gatewayPublic })).toThrow(MalformedMessageError);
	});

	it("a parsed object with a cycle: no throw, each form says it cannot make a string", () => {
		const cyclic: Record<string, unknown> = {
			status: "successful",
			signature: Buffer.alloc(256, 1).toString("base64"),
		};
		cyclic.self = cyclic;
		const report = diagnoseSignature(cyclic, { publicKey: keys.gatewayPublic });
		expect(report.verified).toBe(false);
		expect(report.attempts).toHaveLength(4);
		for (const attempt of report.attempts) {
			expect(attempt).toMatchObject({ verified: false, error: expect.any(String) });
			expect(attempt.signedString).toBeUndefined();
		}
		expect(report.attempts[0]?.error).toMatch(/self.*nesting deeper than 64/);
	});

	it("a key that is not a key", () => {
		expect(() => diagnoseSignature("{}", { publicKey: "not a key" })).toThrow(InvalidKeyError);
	});
});

describe("on the known-answer vectors", () => {
	/** The message as received, for each kind; sign20 is a merchant request. */
	const received = vectors.flatMap((v) => {
		const input = v.kind.startsWith("callback") ? v.url : v.message;
		return input === undefined ? [] : [[v.name, v, input] as const];
	});

	it.each(received)("%s: the reference form or 2.1 verifies, from the raw text", (_, vector, input) => {
		const report = diagnoseSignature(input, { publicKey: signerKeys(vector).publicKey });
		expect(report.form).toBe(vector.kind.endsWith("21") ? "payload-2.1" : "reference");
	});

	/**
	 * The retired first D3's vectors, made by PHP from those rules and signed by the gateway's key:
	 * in ../shared only.
	 */
	const retiredFile = `${sharedVectorsDir}signing-vectors.json`;
	const retired: Array<{ name: string; kind: string; signer: string; message?: string; url?: string }> = existsSync(
		retiredFile,
	)
		? JSON.parse(readFileSync(retiredFile, "utf8")).vectors
		: [];
	const retired20 = retired.filter((v) => v.kind.endsWith("20")).map((v) => [v.name, v] as const);

	it.skipIf(retired20.length === 0).each(retired20)("retired %s: named as retired-first-draft", (_, vector) => {
		const publicKey = vector.signer === "gateway" ? keys.gatewayPublic : keys.merchantPublic;
		const report = diagnoseSignature((vector.url ?? vector.message) as string, { publicKey });
		expect(report.verifiedBy).toContain("retired-first-draft");
		// Where an earlier form makes the same string, that one is named first; otherwise the retired form is.
		const attempt = report.attempts.find((a) => a.form === "retired-first-draft");
		if (attempt?.sameStringAs === undefined) expect(report.form).toBe("retired-first-draft");
		else expect(report.form).toBe(attempt.sameStringAs);
	});
});
