import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
	flatStringifiedForm,
	MalformedMessageError,
	nodeSnippetForm,
	retiredFirstDraftForm,
	type SignedStringForm,
} from "../../src/index.js";
import { canonicalString, openCallbackUrl, openMessage, sealMessage } from "../../src/signing/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keys, sharedVectorsDir } from "../support/vectors.js";

/** One message on which the four 2.0 forms all differ: case, digits, null, "", nested order, "/", non-ASCII. */
const message = {
	transactionId: "01k0svjxa7rxj0wwz0cqb85r6a",
	status: " successful ",
	amount: 10.5,
	message: null,
	Zeta: "z/1",
	a10: true,
	a2: false,
	note: "",
	fees: { operate: 1.5, buyer: " 0 ", seller: null },
	name: "Zoë",
	items: [1, "x"],
};

describe("the 2.0 signed-string forms on one message", () => {
	it("nodeSnippetForm: top level in localeCompare order (numeric, any case), JSON literals, \\/, raw non-ASCII", () => {
		expect(nodeSnippetForm(message)).toBe(
			'{"a2":false,"a10":true,"amount":"10.5","fees":{"operate":1.5,"buyer":" 0 ","seller":null},"items":[1,"x"],' +
				'"message":null,"name":"Zoë","note":"","status":"successful",' +
				'"transactionId":"01k0svjxa7rxj0wwz0cqb85r6a","Zeta":"z\\/1"}',
		);
	});

	it('flatStringifiedForm: top level in natural order, "" and null dropped, nested as JSON text, PHP casts', () => {
		expect(flatStringifiedForm(message)).toBe(
			'{"Zeta":"z\\/1","a2":"","a10":"1","amount":"10.5",' +
				'"fees":"{\\"operate\\":1.5,\\"buyer\\":\\" 0 \\",\\"seller\\":null}","items":"[1,\\"x\\"]",' +
				'"name":"Zo\\u00eb","status":"successful","transactionId":"01k0svjxa7rxj0wwz0cqb85r6a"}',
		);
	});

	it("retiredFirstDraftForm: every level sorted by code unit, numbers as JavaScript strings, literals kept", () => {
		expect(retiredFirstDraftForm(message)).toBe(
			'{"Zeta":"z\\/1","a10":true,"a2":false,"amount":"10.5","fees":{"buyer":"0","operate":"1.5","seller":null},' +
				'"items":["1","x"],"message":null,"name":"Zo\\u00eb","note":"","status":"successful",' +
				'"transactionId":"01k0svjxa7rxj0wwz0cqb85r6a"}',
		);
	});

	it("the four forms differ on it (the doctor's tests rely on that)", () => {
		const strings = [canonicalString, nodeSnippetForm, flatStringifiedForm, retiredFirstDraftForm].map((form) =>
			form(message),
		);
		expect(new Set(strings).size).toBe(4);
	});

	it.each([
		["nodeSnippetForm", nodeSnippetForm],
		["flatStringifiedForm", flatStringifiedForm],
		["retiredFirstDraftForm", retiredFirstDraftForm],
	] as const)("%s leaves out the top-level signature and undefined values", (_, form) => {
		expect(form({ ...message, signature: "abc", gone: undefined })).toBe(form(message));
	});
});

describe("what sets each form apart", () => {
	it("nodeSnippetForm trims Unicode spaces as JavaScript does and writes numbers with String(n)", () => {
		expect(nodeSnippetForm({ b: "\u00a0x\u2003", a: 1e21, c: 0.1 + 0.2 })).toBe(
			'{"a":"1e+21","b":"x","c":"0.30000000000000004"}',
		);
	});

	it("nodeSnippetForm sorts upper and lower case together and digit runs by value", () => {
		expect(nodeSnippetForm({ b: 1, B2: 2, a10: 3, A9: 4 })).toBe('{"A9":"4","a10":"3","b":"1","B2":"2"}');
	});

	it("flatStringifiedForm keeps false as an empty string, casts floats at precision 14, keeps PHP's trim set", () => {
		expect(flatStringifiedForm({ f: false, x: 0.1 + 0.2, big: 1e25, s: "\u00a0x \t" })).toBe(
			'{"big":"1.0E+25","f":"","s":"\\u00a0x","x":"0.3"}',
		);
	});

	it("retiredFirstDraftForm keeps {} as {} and sorts integer-like keys as strings", () => {
		expect(retiredFirstDraftForm({ m: { 9: "a", 10: "b" }, e: {} })).toBe('{"e":{},"m":{"10":"b","9":"a"}}');
	});

	it.each([
		["nodeSnippetForm", nodeSnippetForm],
		["flatStringifiedForm", flatStringifiedForm],
		["retiredFirstDraftForm", retiredFirstDraftForm],
	] as const)("%s refuses what cannot be signed with a typed error naming the field", (_, form) => {
		expect(() => form({ amount: Number.NaN })).toThrow(MalformedMessageError);
		expect(() => form({ amount: Number.NaN })).toThrow(/amount/);
		expect(() => form([] as unknown as Record<string, unknown>)).toThrow(MalformedMessageError);
	});
});

describe("each form seals and opens through the signedString option", () => {
	const forms: Array<[string, SignedStringForm]> = [
		["nodeSnippetForm", nodeSnippetForm],
		["flatStringifiedForm", flatStringifiedForm],
		["retiredFirstDraftForm", retiredFirstDraftForm],
	];

	it.each(forms)("%s: a sealed message opens with the form and fails with the reference form", (_, form) => {
		const body = JSON.stringify(sealMessage(message, { privateKey: keys.gatewayPrivate, signedString: form }));
		expect(openMessage(body, { publicKey: keys.gatewayPublic, signedString: form })).toMatchObject({
			status: "successful",
		});
		expect(() => openMessage(body, { publicKey: keys.gatewayPublic })).toThrow(/does not match/);
		const url = sealCallbackUrl("https://shop.example/return", message, {
			privateKey: keys.gatewayPrivate,
			signedString: form,
		});
		expect(openCallbackUrl(url, { publicKey: keys.gatewayPublic, signedString: form }).fields).toMatchObject({
			amount: 10.5,
		});
	});
});

/** The retired first D3's vectors, made by PHP from those rules: kept in ../shared only. */
const retiredFile = `${sharedVectorsDir}signing-vectors.json`;
const retired = existsSync(retiredFile)
	? (JSON.parse(readFileSync(retiredFile, "utf8")).vectors as Array<{
			name: string;
			kind: string;
			input: Record<string, unknown>;
			canonical?: string;
		}>)
	: [];

describe.skipIf(retired.length === 0)(
	"retiredFirstDraftForm against the retired vectors (../shared/vectors/signing-vectors.json)",
	() => {
		it.each(retired.filter((v) => v.canonical !== undefined).map((v) => [v.name, v] as const))("%s", (_, vector) => {
			expect(retiredFirstDraftForm(vector.input)).toBe(vector.canonical);
		});
	},
);
