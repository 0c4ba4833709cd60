import { inspect } from "node:util";
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
	expect(redactText(text)).toBe('{"key":"\\[redacted key]"}');
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

describe("a card number inside a longer run of digits is masked, and the code or expiry after it removed", () => {
	test.each([
		[
			"its security code after it",
			"charge refused: 4111111111111111 737",
			"charge refused: 411111******1111 [redacted]",
		],
		["grouped in fours, its expiry after it", "card 4111 1111 1111 1111 12/30", "card 411111******1111 [redacted]"],
		["its expiry as two groups", "held: 4111 1111 1111 1111 12 39", "held: 411111******1111 [redacted]"],
		["dashes, a spaced slash", "4111-1111-1111-1111-12 / 2030 ok", "411111******1111-[redacted] ok"],
		[
			"digits before it that make no card with it",
			"order 7 4111 1111 1111 1111 737",
			"order 7 411111******1111 [redacted]",
		],
		["an Amex number (15 digits, 4-6-5)", "amex 3782 822463 10005 1234", "amex 378282*****0005 [redacted]"],
	])("%s", (_name, text, shown) => {
		expect(redactText(text)).toBe(shown);
	});

	test("a card number is masked on its own, not with the code as one number, even when together they pass Luhn", () => {
		// 4111111111111111128 passes Luhn: masked as one number its last four would show the code.
		expect(redactText("refused 4111111111111111 128")).toBe("refused 411111******1111 [redacted]");
	});

	test("the number is found wherever it starts in the run, the first card in it masked and the rest removed", () => {
		expect(redactText("ids 20 31 4111111111111111 5555555555554444 end")).toBe(
			"ids 20 31 411111******1111 [redacted] end",
		);
	});

	test("long numbers that hold no separated card number are left as they are", () => {
		for (const text of [
			// 20 digits (Luhn-valid as a whole, and its first 16 digits are a card number): one number, too long.
			"event 41111111111111110000 failed",
			"at 20300101123000123456789",
			// Luhn-invalid throughout.
			"order 4111 1111 1111 1112 then 1234-5678",
			// A card number has 13 to 19 digits: 12 (Luhn-valid) are too few.
			"batch 411111111117",
		])
			expect(redactText(text)).toBe(text);
	});

	test("a slash ends a card number: digits joined by slashes are no card", () => {
		expect(redactText("path 4111/1111/1111/1111")).toBe("path 4111/1111/1111/1111");
	});
});

describe("credentials in free text are removed", () => {
	test.each([
		[
			"a bearer token",
			"upstream said 401 for Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig-_x~",
			"upstream said 401 for Bearer [redacted]",
		],
		["an Authorization header", "sent Authorization: Basic dXNlcjpwYXNz", "sent Authorization: [redacted]"],
		[
			"a password in a URL",
			"POST https://shop:s3cr3t@erp.example/orders failed",
			"POST https://shop:[redacted]@erp.example/orders failed",
		],
		["a URL password holding an @", "redis://:p@ss@cache.internal:6379", "redis://:[redacted]@cache.internal:6379"],
		[
			"query parameters",
			"GET /v1?api_key=k-123&token=t-456&password=hunter2&page=2",
			"GET /v1?api_key=[redacted]&token=[redacted]&password=[redacted]&page=2",
		],
		["an API key header", "x-api-key: live_9f8e7d", "x-api-key: [redacted]"],
		["JSON", '{"apiKey":"k-123","accessToken":"t-456"}', '{"apiKey":"[redacted]","accessToken":"[redacted]"}'],
		[
			"a JSON value the text ends inside",
			'{"apiKey":"k-123","accessToken":"t-45',
			'{"apiKey":"[redacted]","accessToken":"[redacted]"',
		],
		["an escaped JSON value the text ends inside", '{\\"password\\":\\"hunt', '{\\"password\\":\\"[redacted]\\"'],
		["the same, cut inside its escape", '{\\"password\\":\\"hunt\\', '{\\"password\\":\\"[redacted]\\"'],
		["a single-quoted value the text ends inside", "'password' => 'hunt", "'password' => '[redacted]'"],
		["a JSON value cut inside an escape", '{"token":"t-4\\', '{"token":"[redacted]"'],
	])("%s", (_name, text, shown) => {
		expect(redactText(text)).toBe(shown);
	});

	test("a URL without a password keeps its user, host and port", () => {
		const text = "https://shop@erp.example:8443/orders and https://erp.example:8443/x";
		expect(redactText(text)).toBe(text);
	});

	test("in objects, API keys, tokens and Authorization headers are dropped", () => {
		expect(redact({ apiKey: "k", token: "t", Authorization: "Bearer t", kept: 1 })).toEqual({ kept: 1 });
	});
});

describe("card numbers by their length and place in a digit run", () => {
	test.each([
		["13 digits (the shortest card number)", "old visa 4222222222222 ok", "old visa 422222***2222 ok"],
		["19 digits (the longest)", "unionpay 6212345678901234569 ok", "unionpay 621234*********4569 ok"],
		["ending its run: the text after it stays", "card 4111111111111111, thanks", "card 411111******1111, thanks"],
		["right after a slash, as in a URL path", "GET /cards/2024/4111111111111111", "GET /cards/2024/411111******1111"],
		["before a slash: what follows goes", "card 4111 1111 1111 1111/30", "card 411111******1111/[redacted]"],
	])("%s", (_name, text, shown) => {
		expect(redactText(text)).toBe(shown);
	});

	test("a slash anywhere between the groups ends a card number", () => {
		for (const text of ["4111 1111 1111/1111", "4111/1111 1111 1111", "4111 1111/1111 1111"])
			expect(redactText(`path ${text}`)).toBe(`path ${text}`);
	});
});

describe("card numbers under a card number's name", () => {
	test("grouped by spaces or dashes, masked to their digits", () => {
		expect(redactText("card_number=4111 1111 1111 1112")).toBe("card_number=411111******1112");
		expect(redact({ cardNumber: "4111-1111-1111-1112" })).toEqual({ cardNumber: "411111******1112" });
	});

	test("masked whether or not they pass Luhn, as text or as a number; other values under the name are redacted as values", () => {
		expect(redact({ cardNumber: "4111111111111112" })).toEqual({ cardNumber: "411111******1112" });
		expect(redact({ pan: 4111111111111111 })).toEqual({ pan: "411111******1111" });
		expect(redact({ pan: { last4: "1111", note: "card 4111111111111111" } })).toEqual({
			pan: { last4: "1111", note: "card 411111******1111" },
		});
	});

	test("too short to keep six and four digits: redacted whole; twelve digits keep them", () => {
		expect(redact({ cardNumber: "41111111111" })).toEqual({ cardNumber: "[redacted]" });
		expect(redact({ cardNumber: "411111111117" })).toEqual({ cardNumber: "411111**1117" });
	});
});

test("a PEM block in free text is removed whole", () => {
	const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
	expect(redactText(`loaded ${pem} then`)).toBe("loaded [redacted key] then");
});

describe("the request's secrets, removed by value", () => {
	test("only string and number values are looked for", () => {
		const known = new KnownSecrets({ cvv: 987, password: true, secret: null, privateKey: ["abcdef"] });
		expect(known.remove("987 true null abcdef")).toBe("[redacted] true null abcdef");
	});

	test("values under three characters are not removed (they would match by chance); three are", () => {
		expect(new KnownSecrets({ cvv: "12", password: "ab" }).remove("12 ab items")).toBe("12 ab items");
		expect(new KnownSecrets({ cvv: "123", password: "abc" }).remove("123 abc")).toBe("[redacted] [redacted]");
	});

	test("a value mixing digits and other characters is removed in its JSON-escaped forms too", () => {
		for (const value of ['pa"ss123', '12"pass', "secret\\"]) {
			const known = new KnownSecrets({ password: value });
			const once = JSON.stringify({ echo: value });
			expect(known.remove(once), once).toBe('{"echo":"[redacted]"}');
			const twice = JSON.stringify({ body: once });
			expect(known.remove(twice), twice).toBe('{"body":"{\\"echo\\":\\"[redacted]\\"}"}');
		}
	});

	test("nested request objects are searched four levels deep; a cyclic one is bounded", () => {
		const fields: Record<string, unknown> = { a: { b: { c: { d: { cvv: "9876" } } } } };
		expect(new KnownSecrets(fields).remove("code 9876")).toBe("code [redacted]");
		const deeper: Record<string, unknown> = { z: fields };
		expect(new KnownSecrets(deeper).remove("code 9876")).toBe("code 9876");
		const cyclic: Record<string, unknown> = { password: "hunter22" };
		cyclic.self = cyclic;
		expect(new KnownSecrets(cyclic).remove("pw hunter22")).toBe("pw [redacted]");
	});
});

describe("the gateway's words in telemetry", () => {
	test("a quoted text that is part of another is replaced after it (longest first), whatever the order given", () => {
		const error = quotesGateway(new Error("Refused: Dear Zelphine, no"), ["no", "", "Dear Zelphine, no"]);
		expect(telemetryMessage(error)).toBe("Refused: [gateway text]");
	});

	test("the marks are hidden: inspect and spreading the error do not show them", () => {
		const error = quotesGateway(new Error("Refused: no"), ["no"]);
		expect(inspect(error)).not.toContain("quoted-gateway-text");
		expect(Object.getOwnPropertySymbols({ ...error })).toEqual([]);
	});
});

describe("redact makes a safe deep copy", () => {
	test("strings anywhere are scrubbed; null, bytes and arrays keep their kind", () => {
		expect(redact("card 4111111111111111")).toBe("card 411111******1111");
		expect(
			redact({ message: "card 4111111111111111", none: null, body: new Uint8Array(5), list: ["4111111111111111", 7] }),
		).toEqual({ message: "card 411111******1111", none: null, body: "[5 bytes]", list: ["411111******1111", 7] });
	});

	test("depth is bounded: objects twelve levels down are kept, deeper ones replaced; a cycle ends", () => {
		let nested: unknown = "leaf";
		for (let level = 0; level <= 12; level++) nested = { a: nested };
		expect(JSON.stringify(redact(nested))).toBe(JSON.stringify(nested));
		expect(JSON.stringify(redact({ a: nested }))).toContain('{"a":"[…]"}');
		expect(JSON.stringify(redact({ a: nested }))).not.toContain("leaf");
		const cyclic: Record<string, unknown> = { kept: 1 };
		cyclic.self = cyclic;
		expect(JSON.stringify(redact(cyclic))).toContain('"self":"[…]"');
	});

	test("the copy is a plain object its receiver may change; a __proto__ key stays a key", () => {
		const copy = redact(JSON.parse('{"kept":1,"__proto__":{"polluted":true}}')) as Record<string, unknown>;
		copy.kept = 2;
		expect(Reflect.deleteProperty(copy, "__proto__")).toBe(true);
		expect(copy).toEqual({ kept: 2 });
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});

describe("key material in free text", () => {
	test("base64 DER as is (its / unescaped), with or without padding, is removed whole", () => {
		const der = pemBody(keys.merchantPrivate);
		expect(der).toContain("/");
		expect(redactText(`key ${der} end`)).toBe("key [redacted key] end");
		expect(redactText(`key ${"A/b+".repeat(300)} end`)).toBe("key [redacted key] end");
		expect(redactText(`key ${"A/b+".repeat(300)}AA== end`)).toBe("key [redacted key] end");
	});

	test("a PEM block cut before its -----END line is removed to the end of the text", () => {
		expect(redactText("loaded -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC")).toBe(
			"loaded [redacted key]",
		);
	});
});

test("a bearer token after more than one space or a line break is removed too", () => {
	expect(redactText("sent Bearer  eyJhbGciOi.e30.c2ln")).toBe("sent Bearer  [redacted]");
	expect(redactText("sent Bearer\n  eyJhbGciOi.e30.c2ln")).toBe("sent Bearer\n  [redacted]");
});

describe("the request's personal data, for telemetry", () => {
	test("names of things (brandName, displayName) are not personal; name, billing*, customer* are", () => {
		const known = new KnownSecrets(
			{ brandName: "Blue Mug Co", displayName: "Mugs", name: "Zelphine Q", customerIp: "198.51.100.77" },
			{ personal: true },
		);
		expect(known.remove("Blue Mug Co (Mugs) for Zelphine Q at 198.51.100.77")).toBe(
			"Blue Mug Co (Mugs) for [redacted] at [redacted]",
		);
	});

	test("a key that only contains billing, shipping or customer further in is not personal", () => {
		const known = new KnownSecrets({ freeShipping: "over 50 EUR", isCustomerPresent: "yes" }, { personal: true });
		expect(known.remove("free over 50 EUR: yes")).toBe("free over 50 EUR: yes");
	});
});

test("the request's card number grouped by spaces is removed by value in any grouping", () => {
	const known = new KnownSecrets({ cardNumber: "4111 1111 1111 1112" });
	expect(known.remove("echo 4111111111111112 and 4111-1111-1111-1112")).toBe(
		"echo 411111******1112 and 411111******1112",
	);
});
