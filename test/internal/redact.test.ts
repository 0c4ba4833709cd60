import { expect, test } from "vitest";
import { KnownSecrets, redactText } from "../../src/internal/redact.js";
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
