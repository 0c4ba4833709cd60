import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { describe, expect, test } from "vitest";
import { ConfigurationError, GatewayClient, InvalidKeyError } from "../../src/index.js";
import { SDK_VERSION, userAgent } from "../../src/internal/version.js";
import { loadPrivateKey } from "../../src/signing/index.js";
import { keys } from "../support/vectors.js";
import { BASE_URL, makeClient } from "./helpers.js";

const valid = {
	baseUrl: BASE_URL,
	merchantId: "M-1001",
	privateKey: keys.merchantPrivate,
	gatewayPublicKey: keys.gatewayPublic,
};

function configurationIssues(options: unknown) {
	try {
		new GatewayClient(options as never);
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigurationError);
		return (error as ConfigurationError).issues;
	}
	throw new Error("expected a ConfigurationError");
}

describe("options are validated at construction", () => {
	test("a valid configuration constructs, with keys given as PEM or loaded objects", () => {
		expect(makeClient()).toBeInstanceOf(GatewayClient);
		expect(
			new GatewayClient({
				...valid,
				privateKey: loadPrivateKey(keys.merchantPrivate),
				gatewayPublicKey: [keys.gatewayPublic],
			}),
		).toBeInstanceOf(GatewayClient);
	});

	test("missing keys and merchantId are named", () => {
		expect(configurationIssues({ baseUrl: BASE_URL })).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ field: "merchantId", message: "is required" }),
				expect.objectContaining({ field: "privateKey", message: "is required" }),
				expect.objectContaining({ field: "gatewayPublicKey", message: "is required" }),
			]),
		);
	});

	test("keys of the wrong kind are named with the accepted forms", () => {
		expect(configurationIssues({ ...valid, privateKey: 5, gatewayPublicKey: {} })).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ field: "privateKey", message: expect.stringContaining("PEM text, base64 DER") }),
				expect.objectContaining({ field: "gatewayPublicKey", message: expect.stringContaining("non-empty list") }),
			]),
		);
	});

	test.each([
		["not a url", "must be an absolute URL"],
		["http://gateway.example", "must be an https URL"],
		["http://localhost:8080", "must be an https URL"],
		["https://gateway.example/?debug=1", "must not carry a query"],
	])("baseUrl %s is refused", (baseUrl, message) => {
		expect(configurationIssues({ ...valid, baseUrl })).toEqual([
			{ field: "baseUrl", message: expect.stringContaining(message) },
		]);
	});

	test("loopback http baseUrl only with allowLoopbackHttp", () => {
		expect(new GatewayClient({ ...valid, baseUrl: "http://127.0.0.1:8080", allowLoopbackHttp: true })).toBeInstanceOf(
			GatewayClient,
		);
		expect(
			configurationIssues({ ...valid, baseUrl: "http://gateway.example", allowLoopbackHttp: true })[0]?.field,
		).toBe("baseUrl");
	});

	test.each([
		["signVersion", "2.2"],
		["timeoutMs", 0],
		["timeoutMs", 1.5],
		["maxRetries", -1],
		["maxRetries", 11],
		["retryBaseDelayMs", -5],
		["fetch", "fetch"],
		["hooks", { onRequest: "x" }],
		["logLevel", "verbose"],
		["allowLoopbackHttp", "yes"],
		["requireSignedResponses", 1],
		["merchantId", "x".repeat(51)],
		["gatewayPublicKey", []],
		["unknownOption", true],
	])("%s = %j is refused", (field, value) => {
		const issues = configurationIssues({ ...valid, [field]: value });
		expect(issues.map((issue) => issue.field.split(".")[0])).toContain(field);
	});

	test("a key that cannot be loaded -> InvalidKeyError, without the key in the message", () => {
		const broken = keys.merchantPrivate.replace(/[A-Za-z]{20}/, "A".repeat(20));
		let error: unknown;
		try {
			new GatewayClient({ ...valid, privateKey: broken });
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(InvalidKeyError);
		expect(String((error as Error).message)).not.toContain(broken.slice(40, 80));
		expect(() => new GatewayClient({ ...valid, privateKey: keys.gatewayPublic })).toThrow(InvalidKeyError);
	});
});

describe("the client never shows its keys", () => {
	test("JSON.stringify and util.inspect show the configuration summary only", () => {
		const client = makeClient();
		const shown = [
			JSON.stringify(client),
			inspect(client, { depth: 10, showHidden: true }),
			inspect(client.checkout, { depth: 10 }),
			String(client),
		];
		for (const text of shown) {
			expect(text).not.toContain("PRIVATE KEY");
			expect(text).not.toContain(keys.merchantPrivate.split("\n")[1]);
		}
		expect(JSON.parse(shown[0] as string)).toEqual({ baseUrl: BASE_URL, merchantId: "M-1001", signVersion: "2.0" });
		expect(shown[1]).toContain("keys: [redacted]");
	});
});

describe("User-Agent", () => {
	test("SDK_VERSION is package.json's version", () => {
		const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
		expect(SDK_VERSION).toBe(pkg.version);
	});
	test("names the SDK and the runtime", () => {
		expect(userAgent()).toBe(`merchant-gateway/${SDK_VERSION} node/${process.versions.node}`);
	});
});
