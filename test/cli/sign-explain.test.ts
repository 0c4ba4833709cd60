import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalString, openMessage } from "../../src/signing/index.js";
import { keyPath, keys } from "../support/vectors.js";
import { runCliProcess } from "./spawn.js";

/**
 * A checkout request as a merchant writes it, with what the reference form changes:
 * padding, numbers, booleans, null, lists.
 */
const request = {
	merchantId: "M-1001",
	orderRef: "  ORD-2026-0001 ",
	amount: 10.5,
	currency: "EUR",
	callbackUrl: "https://shop.example/pay/callback",
	orderDescription: "Café crème",
	feeBySeller: 100,
	field10: "ten",
	field9: "nine",
	browserDetails: { javaEnabled: false, cookieEnabled: true, screenWidth: 1920, timezone: null },
	metadata: { lines: { 0: "a", 1: "b" }, extra: {} },
};

const dir = mkdtempSync(join(tmpdir(), "mg-explain-"));
const requestFile = join(dir, "request.json");
writeFileSync(requestFile, JSON.stringify(request, null, 2));

/** The line after `heading` in the output. */
function lineAfter(output: string, heading: RegExp): string | undefined {
	const lines = output.split("\n");
	const at = lines.findIndex((line) => heading.test(line));
	return at < 0 ? undefined : lines[at + 1];
}

describe("merchant-gateway sign --explain", () => {
	it("2.0: prints the top-level order, the leaves that change, the lists, and exactly canonicalString", async () => {
		const result = await runCliProcess(["sign", "--explain", requestFile]);
		expect(result.err).toBe("");
		expect(result.code).toBe(0);
		const expected = canonicalString(request);
		expect(lineAfter(result.out, /^Signed string \(\d+ bytes of UTF-8\):$/)).toBe(expected);
		expect(result.out).toContain(`Signed string (${Buffer.byteLength(expected)} bytes of UTF-8):`);
		expect(lineAfter(result.out, /^2\. Top-level keys in PHP's natural order/)).toBe(
			"   amount, browserDetails, callbackUrl, currency, feeBySeller, field9, field10, " +
				"merchantId, metadata, orderDescription, orderRef",
		);
		for (const line of [
			'   amount: 10.5 -> "10.5"',
			'   browserDetails.javaEnabled: false -> ""',
			'   browserDetails.cookieEnabled: true -> "1"',
			'   browserDetails.screenWidth: 1920 -> "1920"',
			'   browserDetails.timezone: null -> ""',
			'   orderRef: "  ORD-2026-0001 " -> "ORD-2026-0001"',
			"   metadata.lines (keys 0..1)",
			"   metadata.extra ({} -> [])",
		]) {
			expect(result.out).toContain(`${line}\n`);
		}
		// Every string a changed leaf becomes is in the signed string.
		for (const [, value] of result.out.matchAll(/ -> ("[^"]*")$/gm)) expect(expected).toContain(value);
	});

	it("2.0 with --key: the signature printed verifies over that string", async () => {
		const result = await runCliProcess(["sign", "-e", requestFile, "--key", keyPath("merchant-private")]);
		expect(result.code).toBe(0);
		const signature = lineAfter(result.out, /^signature:$/) ?? "";
		expect(openMessage({ ...request, signature }, { publicKey: keys.merchantPublic })).toMatchObject({
			orderRef: "ORD-2026-0001",
		});
	});

	it("2.1: prints the payload text, which is JSON.stringify of the fields", async () => {
		const result = await runCliProcess(
			["sign", "--explain", "-", "--sign-version", "2.1"],
			JSON.stringify({ ...request, signature: "x" }),
		);
		expect(result.code).toBe(0);
		expect(result.out).toContain("signVersion: 2.1");
		expect(lineAfter(result.out, /^Signed string/)).toBe(JSON.stringify(request));
	});

	it("card data is redacted and the output says so; --explain with --message is bad usage", async () => {
		const charge = { ...request, cardNumber: "4111111111111112", cardSecurityCode: 123 };
		const [result, both] = await Promise.all([
			runCliProcess(["sign", "--explain", "-"], JSON.stringify(charge)),
			runCliProcess(["sign", "--explain", "--message", requestFile, "--key", keyPath("merchant-private")]),
		]);
		expect(result.code).toBe(0);
		expect(result.out).not.toContain("4111111111111112");
		expect(result.out).not.toMatch(/\b123\b/);
		expect(result.out).toContain('"cardNumber":"411111******1112"');
		expect(result.out).toContain(
			"(card data and key material are redacted here; the signature covers the real values)",
		);
		expect(both.code).toBe(2);
	});

	it("the sign help describes the reference form, not the retired sorted-keys rules", async () => {
		const help = await runCliProcess(["sign", "--help"]);
		expect(help.code).toBe(0);
		expect(help.out).not.toContain("keys sorted");
		expect(help.out).toContain("top-level keys in PHP's natural order");
		expect(help.out).toContain('true -> "1", false and null -> ""');
		expect(help.out).toContain("--explain");
	});
});
