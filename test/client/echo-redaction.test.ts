import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import { describe, expect, test } from "vitest";
import type { GatewayClient } from "../../src/index.js";
import { KnownSecrets, redactText } from "../../src/internal/redact.js";
import type { ReceivedRequest } from "../../src/testing.js";
import { ids, signedWrapped, type Version } from "../support/gateway-messages.js";
import { keys } from "../support/vectors.js";
import { useGateway } from "./gateway.js";
import { cardParams, checkoutParams } from "./helpers.js";

/**
 * A gateway that echoes the request into its responses, in the forms a PHP
 * gateway prints (written by PHP itself: print_r, var_export, var_dump, XML,
 * snake_case, form fields, the raw body, the body inside a JSON string), under
 * 2.0 and 2.1, through every error class that carries gateway text and every
 * output channel. The canary card number and security code appear nowhere.
 */

const PAN = "5105105105105100";
const CVV = "7319";
const GROUPED = ["5105 1051 0510 5100", "5105-1051-0510-5100"];

const phpScript = fileURLToPath(new URL("./php/echo-request.php", import.meta.url));
const hasPhp = spawnSync("php", ["--version"]).status === 0;
const echoCache = new Map<string, Record<string, string>>();

/** The echo forms of a request body, printed by PHP. */
function phpEchoes(raw: string): Record<string, string> {
	const cached = echoCache.get(raw);
	if (cached) return cached;
	const result = spawnSync("php", [phpScript], { input: raw });
	if (result.status !== 0) throw new Error(`php failed: ${result.stderr.toString()}`);
	const forms = JSON.parse(result.stdout.toString()) as Record<string, string>;
	echoCache.set(raw, forms);
	return forms;
}

/** Echoes no pattern can find: the bare security code and the grouped card number, next to no field name. */
const bareEchoes = (): Record<string, string> => ({
	"bare digits": `Card ${GROUPED[0]} was refused: security code ${CVV} does not match (${GROUPED[1]}, ${CVV})`,
});

/** An unsigned error body, as the gateway sends them. */
const failed = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
	Response.json({ status: "error", ...body }, { status, headers });
const page = (status: number, text: string) => new Response(text, { status });
const unsignedSuccess = (message: string) => {
	return Response.json({ status: "success", message, data: { transactionId: ids.transaction } });
};

/** Each response shape that carries gateway text, keyed by the error it must become. */
const shapes: Array<[string, (echo: string) => Response]> = [
	["GatewayValidationError (errors[])", (e) => failed(422, { message: e, errors: [{ field: e, message: [e] }] })],
	["GatewayValidationError (no errors[])", (e) => failed(422, { message: e })],
	["NoS2SProviderError", (e) => failed(422, { transactionId: null, message: e })],
	["ProcessingError (400)", (e) => failed(400, { message: e, data: { transactionId: ids.transaction } })],
	["ProcessingError (500)", (e) => failed(500, { message: e, data: { transactionId: e } })],
	["AuthenticationError (JSON)", (e) => failed(403, { message: e })],
	["AuthenticationError (page)", (e) => page(403, `<html><body><pre>${e}</pre></body></html>`)],
	["RateLimitError", (e) => failed(429, { message: e }, { "retry-after": "1" })],
	["InvalidResponseError (4xx page)", (e) => page(404, e)],
	["OutcomeUnknownError (200 not JSON)", (e) => page(200, e)],
	["OutcomeUnknownError (502 proxy page)", (e) => page(502, e)],
	["OutcomeUnknownError (500 page)", (e) => page(500, `<h1>Error</h1>${e}`)],
	["OutcomeUnknownError (unsigned success)", unsignedSuccess],
];

const captured: string[] = [];
function capture(value: unknown): void {
	captured.push(typeof value === "string" ? value : inspect(value, { depth: 20, showHidden: false }));
	try {
		captured.push(JSON.stringify(value) ?? "");
	} catch {
		// cycles: inspect above is enough
	}
}
const logger = { debug: capture, info: capture, warn: capture, error: capture };
const sink = (...values: unknown[]) => {
	for (const value of values) capture(value);
};

function captureError(error: unknown): void {
	const e = error as Error;
	sink(e, e.message, String(e), e.stack, inspect(e, { depth: 20, showHidden: true }), JSON.stringify(e), e.cause);
}

/** Stack frames carry file locations (`file.js:7319:20`), never gateway data: they are left out of the search. */
const withoutLocations = (text: string) => text.replace(/:\d+:\d+\)?/g, ":L:C");

function expectNoCanary(): void {
	const everything = withoutLocations(captured.join("\n"));
	expect(everything).not.toContain(PAN);
	for (const grouped of GROUPED) expect(everything).not.toContain(grouped);
	expect(everything).not.toContain(CVV);
}

const fixture = useGateway();

const client = (version: Version): GatewayClient =>
	fixture.client({
		signVersion: version,
		logger: { debug: logger.debug, info: logger.info, warn: sink, error: sink },
		logLevel: "debug",
		hooks: { onRequest: capture, onResponse: capture, onRetry: capture, onError: capture },
	});

describe.skipIf(!hasPhp && !process.env.CI)("a gateway echoing the request", () => {
	test.each(["2.0", "2.1"] as const)("card.charge: every echo form, error class and channel (%s)", async (version) => {
		captured.length = 0;
		const gateway = client(version);
		const params = cardParams({ cardNumber: PAN, cardSecurityCode: CVV });
		const seen = new Set<string>();
		const misclassified: string[] = [];
		let forms: Record<string, string> | undefined;
		// The first request's body gives PHP what to echo (the body is the same for every call: signing is deterministic).
		fixture.next("/v2/card/api", (received: ReceivedRequest) => {
			forms = { ...phpEchoes(received.raw), ...bareEchoes() };
			return Response.json(signedWrapped("success", null, { transactionId: ids.transaction }, version));
		});
		capture(await gateway.card.charge(params));
		if (!forms) throw new Error("the gateway saw no request");
		expect(Object.keys(forms)).toHaveLength(11);
		// The echoes really carry the canary (in 2.1, as escaped JSON inside the raw body).
		expect(forms["raw body"]).toContain(CVV);
		if (version === "2.1") expect(forms["raw body"]).toContain(`\\"cardSecurityCode\\":\\"${CVV}\\"`);

		for (const [formName, echo] of Object.entries(forms)) {
			for (const [expected, shape] of shapes) {
				fixture.next("/v2/card/api", () => shape(echo));
				const error = await gateway.card.charge(params).then(
					() => new Error(`${formName} / ${expected}: the call succeeded`),
					(e: unknown) => e,
				);
				const { name } = error as Error;
				if (name !== expected.split(" ")[0]) misclassified.push(`${formName} / ${expected}: ${name}`);
				seen.add(name);
				captureError(error);
			}
			// A success whose unsigned message echoes the request: the result the merchant logs is clean too.
			const echoingSuccess = signedWrapped("success", echo, { transactionId: ids.transaction }, version);
			fixture.next("/v2/card/api", () => Response.json(echoingSuccess));
			capture(await gateway.card.charge(params));
		}
		expectNoCanary();
		expect(misclassified).toEqual([]);
		expect([...seen].sort()).toEqual([
			"AuthenticationError",
			"GatewayValidationError",
			"InvalidResponseError",
			"NoS2SProviderError",
			"OutcomeUnknownError",
			"ProcessingError",
			"RateLimitError",
		]);
		// The channels were exercised: masked numbers and echoed field names reached them.
		const everything = captured.join("\n");
		expect(everything).toContain("510510******5100");
		expect(everything).toContain("card_security_code");
		expect(everything).toContain("[cardSecurityCode] =>");
	});

	test.each(["2.0", "2.1"] as const)("checkout.create (no card data known): patterns alone (%s)", async (version) => {
		captured.length = 0;
		let forms: Record<string, string> | undefined;
		fixture.next("/v2/card/api", (received: ReceivedRequest) => {
			forms = phpEchoes(received.raw);
			return Response.json(signedWrapped("success", null, { transactionId: ids.transaction }, version));
		});
		await fixture.client({ signVersion: version }).card.charge(cardParams({ cardNumber: PAN, cardSecurityCode: CVV }));
		if (!forms) throw new Error("the gateway saw no request");
		const gateway = client(version);
		for (const echo of Object.values(forms)) {
			fixture.next("/v2/checkout", () => failed(400, { transactionId: null, paymentLink: null, message: echo }));
			const error = await gateway.checkout.create(checkoutParams()).catch((e: unknown) => e);
			expect((error as Error).name).toBe("CheckoutError");
			captureError(error);
		}
		expect(captured.join("\n")).toContain("[redacted]");
		expectNoCanary();
	});
});

describe("redactText", () => {
	const knownSecrets = () => new KnownSecrets({ cardNumber: PAN, cardSecurityCode: "987", nested: { cvv: "4321" } });

	test.each([
		["escaped JSON", String.raw`{\"cardSecurityCode\":\"987\"}`],
		["twice escaped JSON", String.raw`{\\\"cardSecurityCode\\\":\\\"987\\\"}`],
		["print_r", "Array\n(\n    [cardSecurityCode] => 987\n)"],
		["var_export", "array (\n  'cardSecurityCode' => '987',\n)"],
		["var_dump", 'array(1) {\n  ["cardSecurityCode"]=>\n  string(3) "987"\n}'],
		["XML", "<request><cardSecurityCode>987</cardSecurityCode></request>"],
		["snake_case", "card_security_code: 987\n"],
		["kebab-case", "card-security-code=987&x=1"],
		["CVV2", "CVV2: 987"],
	])("removes a security code written as %s, without knowing it", (_name, text) => {
		const shown = redactText(text);
		expect(shown).not.toContain("987");
		expect(shown).toContain("[redacted]");
	});

	test.each([
		["bare", "code 987 refused"],
		["in escaped JSON", String.raw`\"x\":\"987\"`],
		["with a dash", "9-8-7"],
		["nested in the request", "cvv 4321 wrong"],
	])("removes the request's security code by value (%s)", (_name, text) => {
		const digits = (shown: string) => shown.replace(/[ -]/g, "");
		expect(digits(redactText(text))).toMatch(/987|4321/);
		expect(digits(redactText(text, knownSecrets()))).not.toMatch(/987|4321/);
	});

	test.each([
		["raw", PAN],
		["spaces", "5105 1051 0510 5100"],
		["dashes", "5105-1051-0510-5100"],
		["irregular groups", "51051 05105 105100"],
	])("masks the request's card number by value (%s)", (_name, pan) => {
		const shown = redactText(`card ${pan}.`, knownSecrets());
		expect(shown).toBe("card 510510******5100.");
	});

	test("keeps numbers that merely contain the security code, and is idempotent", () => {
		const text = "amount 19870.00, id 01JD5Z8Q4V7M1X2C3B4N5P6R7S, cvv=987";
		const once = redactText(text, knownSecrets());
		expect(once).toBe("amount 19870.00, id 01JD5Z8Q4V7M1X2C3B4N5P6R7S, cvv=[redacted]");
		expect(redactText(once, knownSecrets())).toBe(once);
		expect(redactText('"cardSecurityCode":"[redacted]"')).toBe('"cardSecurityCode":"[redacted]"');
	});

	test("a non-numeric secret is removed raw and in its JSON-escaped forms", () => {
		const passphrase = new KnownSecrets({ passphrase: 'pa"ss word' });
		const text = `a pa"ss word b ${JSON.stringify('pa"ss word')} c ${JSON.stringify(JSON.stringify('pa"ss word'))}`;
		expect(redactText(text, passphrase)).not.toMatch(/ss word/);
	});

	test("key material still never appears", () => {
		expect(redactText(`x ${keys.merchantPrivate} y`)).not.toContain("PRIVATE KEY");
	});
});
