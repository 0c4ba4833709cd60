import { describe, expect, test } from "vitest";
import { KnownSecrets, redact, redactText } from "../../src/internal/redact.js";
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
