import { describe, expect, it } from "vitest";
import { MalformedMessageError, SignatureVerificationError, type SignVersion } from "../../src/index.js";
import { openCallbackUrl } from "../../src/signing/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keys, vector } from "../support/vectors.js";

const gateway = { privateKey: keys.gatewayPrivate };
const verify = { publicKey: keys.gatewayPublic };
const versions: SignVersion[] = ["2.0", "2.1"];

// Content chosen so that its standard base64 holds both "+" and "/" (checked below).
const fields = {
	status: "successful",
	transactionId: "01JD5Z8Q4V7M1X2C3B4N5P6R7S",
	ref: "ORD>?>?~~",
	amount: 10.5,
	note: "ûÿ~~>>??",
};

const payloadOf = (url: string) => new URL(url).searchParams.get("payload") ?? "";
/** Rewrites the payload parameter's value as another spelling would, leaving the rest of the URL as it is. */
function withPayload(url: string, spell: (standard: string) => string, encode = true): string {
	const parsed = new URL(url);
	const spelled = spell(parsed.searchParams.get("payload") ?? "");
	const query = parsed.search
		.slice(1)
		.split("&")
		.map((part) => (part.startsWith("payload=") ? `payload=${encode ? encodeURIComponent(spelled) : spelled}` : part))
		.join("&");
	return `${parsed.origin}${parsed.pathname}?${query}${parsed.hash}`;
}
const toBase64Url = (text: string) => text.replace(/\+/g, "-").replace(/\//g, "_");
const unpadded = (text: string) => text.replace(/=+$/, "");

describe.each(versions)("callback URL, version %s", (signVersion) => {
	const url = sealCallbackUrl("https://shop.example/pay/callback", fields, { ...gateway, signVersion });

	it("round-trips and reports the version", () => {
		expect(openCallbackUrl(url, verify)).toEqual({ fields, signVersion });
	});

	it("the payload's standard base64 holds + and / (so the spellings below are exercised)", () => {
		expect(payloadOf(url)).toMatch(/\+/);
		expect(payloadOf(url)).toMatch(/\//);
	});

	it.each([
		["base64url", (b64: string) => toBase64Url(b64)],
		["base64url without padding", (b64: string) => unpadded(toBase64Url(b64))],
		["standard base64 without padding", (b64: string) => unpadded(b64)],
		["+ turned into a space by a form decoder", (b64: string) => b64.replace(/\+/g, " ")],
		["line breaks inside the base64", (b64: string) => b64.replace(/(.{40})/g, "$1\r\n")],
	])("accepts %s", (_name, spell) => {
		expect(openCallbackUrl(withPayload(url, spell), verify).fields).toEqual(fields);
	});

	it("accepts a raw URL whose unencoded + a query parser reads as a space", () => {
		const raw = withPayload(url, (b64) => b64, false);
		expect(new URL(raw).searchParams.get("payload")).toContain(" ");
		expect(openCallbackUrl(raw, verify).fields).toEqual(fields);
	});

	it("accepts any input: URL string, URL, URLSearchParams, query string with or without ?, parsed query object", () => {
		const parsed = new URL(url);
		const query = Object.fromEntries(parsed.searchParams);
		const inputs = [
			url,
			parsed,
			parsed.searchParams,
			parsed.search,
			parsed.search.slice(1),
			query,
			{ ...query, payload: [query.payload ?? ""] },
		];
		for (const input of inputs) expect(openCallbackUrl(input, verify).fields).toEqual(fields);
	});

	it("keeps the callbackUrl's own query parameters and fragment, and still opens", () => {
		const sealed = sealCallbackUrl("https://shop.example/pay/callback?order=ORD-1&lang=pt-BR#receipt", fields, {
			...gateway,
			signVersion,
		});
		const parsed = new URL(sealed);
		expect(sealed.startsWith("https://shop.example/pay/callback?order=ORD-1&lang=pt-BR&payload=")).toBe(true);
		expect(parsed.hash).toBe("#receipt");
		expect(parsed.searchParams.get("order")).toBe("ORD-1");
		expect(parsed.searchParams.get("lang")).toBe("pt-BR");
		expect(parsed.searchParams.get("signVersion")).toBe(signVersion === "2.1" ? "2.1" : null);
		expect(openCallbackUrl(sealed, verify)).toEqual({ fields, signVersion });
	});

	it.each(["https://shop.example/cb?", "https://shop.example/cb?a=1&"])("joins cleanly onto %s", (base) => {
		const sealed = sealCallbackUrl(base, fields, { ...gateway, signVersion });
		expect(sealed).not.toMatch(/\?&|&&/);
		expect(openCallbackUrl(sealed, verify).fields).toEqual(fields);
	});

	it.each([
		["not base64 at all", "!!!not*base64!!!"],
		["a single stray character", "eyJhIjoxfQ=a"],
		["an impossible length", "eyJhIjoxf"],
		["percent garbage", "%%%"],
	])("refuses a payload that is %s with MalformedMessageError on the payload field", (_name, payload) => {
		const signatureParams = signVersion === "2.1" ? "&signVersion=2.1&signature=AAAA" : "";
		const bad = `https://shop.example/cb?payload=${payload}${signatureParams}`;
		let caught: unknown;
		try {
			openCallbackUrl(bad, verify);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(MalformedMessageError);
		expect((caught as MalformedMessageError).field).toBe("payload");
	});

	it("refuses a missing payload, invalid UTF-8 and a payload that is not a JSON object", () => {
		const extra = signVersion === "2.1" ? "&signVersion=2.1&signature=AAAA" : "";
		const b64 = (bytes: Uint8Array) => encodeURIComponent(Buffer.from(bytes).toString("base64"));
		expect(() => openCallbackUrl(`https://shop.example/cb?x=1${extra}`, verify)).toThrow(MalformedMessageError);
		expect(() =>
			openCallbackUrl(`https://shop.example/cb?payload=${b64(new Uint8Array([0xff, 0xfe, 0x7b]))}${extra}`, verify),
		).toThrow(MalformedMessageError);
		if (signVersion === "2.0") {
			expect(() =>
				openCallbackUrl(`https://shop.example/cb?payload=${b64(new TextEncoder().encode("[1,2]"))}`, verify),
			).toThrow(expect.objectContaining({ name: "MalformedMessageError", field: "payload" }));
		}
	});

	it("fails verification when the decoded content changes", () => {
		const decoded = Buffer.from(payloadOf(url), "base64").toString("utf8");
		const forged = decoded.replace("ORD>?>?~~", "ORD>?>?~!");
		expect(forged).not.toBe(decoded);
		const forgedUrl = withPayload(url, () => Buffer.from(forged).toString("base64"));
		expect(() => openCallbackUrl(forgedUrl, verify)).toThrow(SignatureVerificationError);
	});

	it("fails verification with the merchant's key", () => {
		expect(() => openCallbackUrl(url, { publicKey: keys.merchantPublic })).toThrow(SignatureVerificationError);
	});

	it("honours acceptVersions", () => {
		const other: SignVersion = signVersion === "2.0" ? "2.1" : "2.0";
		expect(() => openCallbackUrl(url, { ...verify, acceptVersions: [other] })).toThrow(SignatureVerificationError);
		expect(openCallbackUrl(url, { ...verify, acceptVersions: [signVersion] }).signVersion).toBe(signVersion);
	});
});

describe("callback URL specifics", () => {
	it("2.1: the signature may also use base64url, lose its padding or have + read as space", () => {
		const url = sealCallbackUrl("https://shop.example/cb", fields, { ...gateway, signVersion: "2.1" });
		const signature = new URL(url).searchParams.get("signature") ?? "";
		for (const spelled of [toBase64Url(signature), unpadded(signature), signature.replace(/\+/g, " ")]) {
			const params = new URL(url).searchParams;
			params.set("signature", spelled);
			expect(openCallbackUrl(params, verify).fields).toEqual(fields);
		}
	});

	it("2.1: a missing signature is SignatureVerificationError(missing_signature)", () => {
		const url = sealCallbackUrl("https://shop.example/cb", fields, { ...gateway, signVersion: "2.1" });
		const params = new URL(url).searchParams;
		params.delete("signature");
		expect(() => openCallbackUrl(params, verify)).toThrow(expect.objectContaining({ reason: "missing_signature" }));
	});

	it("an unknown signVersion is MalformedMessageError on signVersion", () => {
		const url = sealCallbackUrl("https://shop.example/cb", fields, { ...gateway, signVersion: "2.1" });
		expect(() => openCallbackUrl(url.replace("signVersion=2.1", "signVersion=3.0"), verify)).toThrow(
			expect.objectContaining({ field: "signVersion" }),
		);
	});

	it("2.0 with an explicit signVersion=2.0 parameter opens as 2.0", () => {
		const url = sealCallbackUrl("https://shop.example/cb", fields, gateway);
		expect(openCallbackUrl(`${url}&signVersion=2.0`, verify).signVersion).toBe("2.0");
	});

	it("refuses input that is not a URL, query or object", () => {
		for (const input of [42, null, true])
			expect(() => openCallbackUrl(input as unknown as string, verify)).toThrow(MalformedMessageError);
	});

	it.each(["callback-2.0", "callback-2.1"])("the %s vector opens in every base64 spelling", (name) => {
		const v = vector(name);
		const url = v.url ?? "";
		for (const spell of [toBase64Url, (b: string) => unpadded(toBase64Url(b)), (b: string) => b.replace(/\+/g, " ")]) {
			expect(openCallbackUrl(withPayload(url, spell), verify).fields).toEqual(v.opened);
		}
	});
});
