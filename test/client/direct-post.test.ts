import { describe, expect, test } from "vitest";
import { RequestValidationError } from "../../src/index.js";
import { escapeHtml } from "../../src/internal/escape-html.js";
import { checkoutRequestSchema, decodeCheckoutForm } from "../../src/schemas/requests.js";
import { openVerified } from "../../src/signing/open.js";
import { keys } from "../support/vectors.js";
import { BASE_URL, checkoutParams, makeClient } from "./helpers.js";

/** Reads the hidden inputs back out of the HTML, undoing the escaping. */
function formFields(html: string): Record<string, string> {
	const decodeEntities = (text: string) =>
		text
			.replace(/&quot;/g, '"')
			.replace(/&#39;/g, "'")
			.replace(/&lt;/g, "<")
			.replace(/&gt;/g, ">")
			.replace(/&amp;/g, "&");
	const fields: Record<string, string> = {};
	for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
		fields[decodeEntities(match[1] as string)] = decodeEntities(match[2] as string);
	return fields;
}

describe("checkout.directPost", () => {
	const hostile = checkoutParams({
		orderDescription: `"><script>alert('x')</script> & co`,
		metadata: { note: "</form>" },
		paymentFilter: ["paypal"],
	});

	test("2.0: every field a string, connectionMode DIRECT_POST, signature verifies over exactly the posted text", () => {
		const form = makeClient().checkout.directPost(hostile);
		expect(form.action).toBe(`${BASE_URL}/v2/checkout`);
		expect(form.method).toBe("POST");
		expect(form.fields).toMatchObject({
			merchantId: "M-1001",
			connectionMode: "DIRECT_POST",
			amount: "10.5",
			metadata: '{"note":"</form>"}',
			paymentFilter: '["paypal"]',
		});
		for (const value of Object.values(form.fields)) expect(typeof value).toBe("string");
		const opened = openVerified(form.fields, { publicKey: keys.merchantPublic });
		expect(opened.fields.orderDescription).toBe(hostile.orderDescription);
	});

	test("2.1: the form carries payload, signVersion and signature only", () => {
		const form = makeClient({ signVersion: "2.1" }).checkout.directPost(hostile);
		expect(Object.keys(form.fields).sort()).toEqual(["payload", "signVersion", "signature"]);
		const opened = openVerified(form.fields, { publicKey: keys.merchantPublic });
		expect(opened.fields).toMatchObject({ connectionMode: "DIRECT_POST", amount: 10.5, metadata: { note: "</form>" } });
	});

	test("the HTML escapes every value and posts itself", () => {
		const form = makeClient().checkout.directPost(hostile, { nonce: "abc123" });
		expect(form.html).not.toContain("<script>alert");
		expect(form.html).not.toContain('</form>"');
		expect(form.html).toContain(
			'<script nonce="abc123">document.getElementById("merchant-gateway-direct-post").submit();</script>',
		);
		expect(form.html).toContain(`action="${BASE_URL}/v2/checkout"`);
		expect(formFields(form.html)).toEqual(form.fields);
	});

	test("2.0: line breaks are signed as the browser posts them, CR LF (LF, lone CR and CR LF alike)", () => {
		const params = checkoutParams({ orderDescription: "one\ntwo\rthree\r\nfour\n\nsix", metadata: { note: "a\nb" } });
		const form = makeClient().checkout.directPost(params);
		expect(form.fields.orderDescription).toBe("one\r\ntwo\r\nthree\r\nfour\r\n\r\nsix");
		// Nested values travel as JSON text, whose line breaks are escapes, untouched by a form post.
		expect(form.fields.metadata).toBe('{"note":"a\\nb"}');
		// The strings survive form URL-encoding unchanged and verify (the browser test posts them from Chromium).
		const submitted = Object.fromEntries(new URLSearchParams(new URLSearchParams(form.fields).toString()));
		const verified = openVerified(submitted, { publicKey: keys.merchantPublic });
		expect(verified.fields.orderDescription).toBe("one\r\ntwo\r\nthree\r\nfour\r\n\r\nsix");
	});

	test("2.0: a value that outgrows its limit once its line breaks are CR LF is refused, saying why", () => {
		const description = `${"x".repeat(2990)}\n${"y".repeat(9)}`;
		const fits = checkoutParams({ orderDescription: description.slice(0, 2999) });
		expect(() => makeClient().checkout.directPost(fits)).not.toThrow();
		let error: unknown;
		try {
			makeClient().checkout.directPost(checkoutParams({ orderDescription: description }));
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(RequestValidationError);
		expect((error as RequestValidationError).issues).toEqual([
			{
				field: "orderDescription",
				message: "must be 1 to 3000 characters (a form post sends each line break as CR LF, two characters)",
			},
		]);
		// Under 2.1 the line break is an escape inside the signed payload: nothing grows.
		const escaped = checkoutParams({ orderDescription: description });
		expect(() => makeClient({ signVersion: "2.1" }).checkout.directPost(escaped)).not.toThrow();
	});

	test("validation applies as for create", () => {
		expect(() => makeClient().checkout.directPost(checkoutParams({ amount: 0 }))).toThrow(/amount/);
	});

	test("decodeCheckoutForm turns the posted strings back into a valid wire message", () => {
		const form = makeClient().checkout.directPost(
			checkoutParams({
				feeBySeller: 40,
				metadata: { cartId: 42 },
				transactionDocuments: [{ type: "invoice", url: "https://shop.example/i.pdf" }],
			}),
		);
		const { signature: _signature, ...posted } = form.fields;
		const message = decodeCheckoutForm(posted);
		expect(message).toMatchObject({
			amount: 10.5,
			feeBySeller: 40,
			metadata: { cartId: 42 },
			connectionMode: "DIRECT_POST",
		});
		expect(checkoutRequestSchema().safeParse(message).success).toBe(true);
		expect(checkoutRequestSchema().safeParse(decodeCheckoutForm({ ...posted, amount: "ten" })).success).toBe(false);
	});

	test("escapeHtml", () => {
		expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
	});
});
