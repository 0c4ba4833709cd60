import { describe, expect, test } from "vitest";
import {
	KnownSecrets,
	quotesGateway,
	redact,
	redactForTelemetry,
	redactText,
	telemetryMessage,
} from "../../src/internal/redact.js";
import { pemBody } from "../signing/key-fixtures.js";
import { keys } from "../support/vectors.js";

test("card data inside a JSON string that holds JSON text (quotes escaped) is masked and removed, quoting kept", () => {
	const text = '{"card":"{\\"cardNumber\\":\\"4111111111111112\\",\\"cardSecurityCode\\":\\"123\\",\\"cvv\\":654}"}';
	expect(redactText(text)).toBe(
		'{"card":"{\\"cardNumber\\":\\"411111******1112\\",\\"cardSecurityCode\\":\\"[redacted]\\",\\"cvv\\":[redacted]}"}',
	);
});

test('bare base64 key material is removed also when JSON writes its "/" as "\\/" and its line breaks as "\\n"', () => {
	const der = pemBody(keys.merchantPrivate);
	const escaped = JSON.stringify({ key: der.match(/.{1,64}/g)?.join("\n") }).replaceAll("/", "\\/");
	expect(escaped).toContain("\\/");
	expect(redactText(escaped)).toBe('{"key":"[redacted key]"}');
});

test("a signature-sized base64 run is left alone", () => {
	const signature = "A/b+".repeat(86);
	expect(redactText(JSON.stringify({ signature }).replaceAll("/", "\\/"))).toContain("A\\/b+");
});

test("key material right after a \\u escape is removed too", () => {
	const der = pemBody(keys.merchantPrivate);
	const text = `{"key":"\\u00e9${der.replaceAll("/", "\\/")}"}`;
	expect(redactText(text)).not.toContain(der.slice(200, 260).replaceAll("/", "\\/"));
	expect(redactText(text)).toContain("[redacted key]");
});

describe("telemetry's redaction", () => {
	const fields = {
		cardNumber: "4111111111111111",
		cardSecurityCode: "987",
		billingFirstName: "Zelphine",
		billingEmail: "z.q@mailbox.example",
		billingStreet1: "742 Evergreen Terrace",
		billingPostalCode: "62704",
		customerIp: "198.51.100.77",
		orderDescription: "Two coffees",
	};

	test("the request's personal data goes by value, emails by pattern, card data as everywhere", () => {
		const text = `Zelphine at 742 Evergreen Terrace 62704 (198.51.100.77), other@shop.example, card 4111111111111111 cvv 987`;
		const shown = redactForTelemetry(text, new KnownSecrets(fields, { personal: true }));
		expect(shown).toBe(
			"[redacted] at [redacted] [redacted] ([redacted]), [redacted], card 411111******1111 cvv [redacted]",
		);
	});

	test("without personal: true, personal data stays (logs and errors keep what the merchant sent)", () => {
		expect(new KnownSecrets(fields).remove("Zelphine, Two coffees")).toBe("Zelphine, Two coffees");
		expect(new KnownSecrets(fields, { personal: true }).remove("Zelphine, Two coffees")).toBe(
			"[redacted], Two coffees",
		);
	});

	test("an error's message loses the gateway's words it quotes; the error keeps them", () => {
		const error = quotesGateway(new Error("Refused: Dear Zelphine, no (amount: too high)"), [
			"Dear Zelphine, no",
			"too high",
		]);
		expect(error.message).toBe("Refused: Dear Zelphine, no (amount: too high)");
		expect(telemetryMessage(error)).toBe("Refused: [gateway text] (amount: [gateway text])");
		expect(Object.keys(error)).toEqual([]);
		expect(telemetryMessage("a thrown string with a@b.example")).toBe("a thrown string with [redacted]");
		expect(telemetryMessage({ not: "an error" })).toBe("");
	});
});

test("a card number already masked is left as it is, also when the request's number is known", () => {
	const masked = '{"cardNumber":"411111******1111","pan":"4111 11** **** 1111"}';
	expect(redactText(masked)).toBe(masked);
	const known = new KnownSecrets({ cardNumber: "4111111111111111" });
	expect(redactText('{"cardNumber":"4111111111111111"}', known)).toBe('{"cardNumber":"411111******1111"}');
});

describe("every secret's name, in every spelling, is redacted in objects, in text and by value", () => {
	const secretNames = [
		"cardSecurityCode",
		"card_security_code",
		"card-security-code",
		"securityCode",
		"security_code",
		"cvv",
		"CVV",
		"cvv2",
		"cvc",
		"cvc2",
		"passphrase",
		"password",
		"privateKey",
		"private_key",
		"private-key",
		"secret",
		"SECRET",
	];
	const cardNames = ["cardNumber", "card_number", "card-number", "pan", "PAN"];
	const value = "s3cr3t-value";
	const card = "4111111111111111";

	test.each(secretNames)("%s", (name) => {
		expect(redact({ [name]: value, kept: "x" }), "in an object").toEqual({ kept: "x" });
		for (const text of [`{"${name}":"${value}"}`, `${name}=${value}`, `[${name}] => ${value}`]) {
			expect(redactText(text), `in text: ${text}`).not.toContain(value);
		}
		expect(new KnownSecrets({ [name]: value }).remove(`echo: ${value}`), "by value").toBe("echo: [redacted]");
	});

	test.each(cardNames)("%s", (name) => {
		expect(redact({ [name]: card }), "in an object").toEqual({ [name]: "411111******1111" });
		// Not Luhn-valid, so only the name can tell these digits are a card number.
		expect(redactText(`{"${name}":"4111111111111112"}`), "in text").toBe(`{"${name}":"411111******1112"}`);
		expect(new KnownSecrets({ [name]: card }).remove(`echo ${card}`), "by value").toBe("echo 411111******1111");
	});
});
