import { describe, expect, test } from "vitest";
import {
	KnownSecrets,
	quotesGateway,
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
