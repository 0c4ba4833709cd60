import { describe, expect, it } from "vitest";
import { decodeCallback, InvalidNotificationError, SignatureVerificationError } from "../../src/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keys, vector } from "../support/vectors.js";
import { gatewayPublicKey } from "./fixtures.js";

const options = { gatewayPublicKey };
const expected = vector("callback-2.0").input;

function rejection(input: Parameters<typeof decodeCallback>[0], opts = options): unknown {
	try {
		decodeCallback(input, opts);
	} catch (error) {
		return error;
	}
	return undefined;
}

/** The forms a framework may hand the redirect over in. */
function forms(url: string): Array<Parameters<typeof decodeCallback>[0]> {
	const parsed = new URL(url);
	return [
		url,
		parsed,
		parsed.search,
		parsed.search.slice(1),
		parsed.searchParams,
		Object.fromEntries(parsed.searchParams),
	];
}

describe("decodeCallback", () => {
	for (const name of ["callback-2.0", "callback-2.1"]) {
		it(`${name}: decodes the vector from a URL, a query string, URLSearchParams and a query object`, () => {
			for (const input of forms(vector(name).url as string)) {
				expect(decodeCallback(input, options)).toEqual(expected);
			}
		});

		it(`${name}: refuses the other party's key`, () => {
			expect(rejection(vector(name).url as string, { gatewayPublicKey: keys.merchantPublic })).toBeInstanceOf(
				SignatureVerificationError,
			);
		});
	}

	it("accepts array values from query parsers (first wins) and base64url without padding", () => {
		const url = new URL(vector("callback-2.1").url as string);
		const payload = (url.searchParams.get("payload") as string)
			.replace(/\+/g, "-")
			.replace(/\//g, "_")
			.replace(/=+$/, "");
		expect(
			decodeCallback(
				{ payload: [payload], signVersion: "2.1", signature: [url.searchParams.get("signature")] },
				options,
			),
		).toEqual(expected);
	});

	it("refuses a changed field, a missing signature, or a 2.0 payload passed off as 2.1", () => {
		for (const version of ["2.0", "2.1"] as const) {
			for (const [key, value] of Object.entries(expected)) {
				const sealed = new URL(
					sealCallbackUrl("https://shop.example/cb", expected, {
						privateKey: keys.gatewayPrivate,
						signVersion: version,
					}),
				);
				const changed = { ...expected, [key]: typeof value === "number" ? value + 1 : `${value}x` };
				const forged = new URL(
					sealCallbackUrl("https://shop.example/cb", changed, {
						privateKey: keys.merchantPrivate,
						signVersion: version,
					}),
				);
				// The forger's payload with the genuine signature.
				if (version === "2.1") forged.searchParams.set("signature", sealed.searchParams.get("signature") as string);
				else {
					const decoded = JSON.parse(Buffer.from(forged.searchParams.get("payload") as string, "base64").toString());
					const genuine = JSON.parse(Buffer.from(sealed.searchParams.get("payload") as string, "base64").toString());
					forged.searchParams.set(
						"payload",
						Buffer.from(JSON.stringify({ ...decoded, signature: genuine.signature })).toString("base64"),
					);
				}
				expect(rejection(forged.href), `${version} ${key}`).toBeInstanceOf(SignatureVerificationError);
			}
		}
		const url21 = new URL(vector("callback-2.1").url as string);
		url21.searchParams.delete("signature");
		expect(rejection(url21.href)).toMatchObject({ reason: "missing_signature" });
		const url20 = new URL(vector("callback-2.0").url as string);
		url20.searchParams.set("signVersion", "2.1");
		expect(rejection(url20.href)).toBeInstanceOf(SignatureVerificationError);
	});

	it("refuses bad base64, missing payloads and non-JSON payloads with InvalidNotificationError", () => {
		for (const input of [
			"https://shop.example/cb",
			"https://shop.example/cb?payload=",
			"payload=%%%%",
			"payload=abc$def",
			"payload=a",
			{ payload: 42 },
			`payload=${Buffer.from("not json").toString("base64")}`,
			`payload=${Buffer.from([0xff, 0xfe]).toString("base64")}`,
			"payload=e30&signVersion=3.0",
		]) {
			const error = rejection(input);
			expect(error, String(input)).toBeInstanceOf(InvalidNotificationError);
			expect((error as InvalidNotificationError).field).toBeDefined();
		}
	});

	it("names a field of the wrong shape, never its value", () => {
		const url = sealCallbackUrl(
			"https://shop.example/cb",
			{ ...expected, amount: "4111111111111111" },
			{ privateKey: keys.gatewayPrivate, signVersion: "2.1" },
		);
		const error = rejection(url);
		expect(error).toBeInstanceOf(InvalidNotificationError);
		expect(error).toMatchObject({ field: "amount" });
		expect((error as Error).message).not.toContain("4111");
	});
});
