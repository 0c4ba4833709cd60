import { describe, expect, test } from "vitest";
import { themeFrom } from "../../src/sandbox/pages/theme.js";
import { openCallbackUrl, openMessage } from "../../src/signing/index.js";
import { testCards } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { cardFields, checkoutFields, postForm, type SandboxServer, signedPost, useSandboxFixture } from "./helpers.js";

const fixture = useSandboxFixture();
const gateway = { publicKey: keys.gatewayPublic };
const BRAND = {
	brandName: "Acme & Co",
	colorMode: "#ff0000---navy---#f0f0f0",
	logoSource: "https://cdn.example/l.png",
};

async function session(server: SandboxServer, overrides: Record<string, unknown> = {}) {
	const response = await signedPost(server.url, "/v2/checkout", checkoutFields(fixture.receiver.url, overrides));
	const fields = openMessage(response.json, gateway);
	const link = new URL(String(fields.paymentLink));
	return {
		transactionId: String(fields.transactionId),
		link: link.href,
		action: `${link.origin}${link.pathname}`,
		token: link.searchParams.get("token") ?? "",
	};
}

/** The start tag of the input with this id. */
const inputTag = (html: string, id: string) => new RegExp(`<input id="${id}"[^>]*>`).exec(html)?.[0] ?? "";

describe("a buyer's typing mistake", () => {
	test("keeps name and expiry, each error right after its field; card number and CVC never written back", async () => {
		const server = await fixture.sandbox();
		const { action, token } = await session(server);
		const page = await postForm(action, {
			token,
			action: "pay",
			cardName: 'Ada "<b>" Lovelace',
			cardNumber: "4000 0000 0000 0011",
			cardExpiry: "13/30",
			cardSecurityCode: "98",
		});
		expect(page.status).toBe(422);
		const html = page.text;
		expect(inputTag(html, "cardName")).toContain('value="Ada &quot;&lt;b&gt;&quot; Lovelace"');
		expect(inputTag(html, "cardExpiry")).toContain('value="13/30"');
		for (const id of ["cardNumber", "cardExpiry", "cardSecurityCode"]) {
			const tag = inputTag(html, id);
			expect(tag).toContain('aria-invalid="true"');
			expect(tag).toContain(`aria-describedby="${id}-error`);
			// Beside the field: the error paragraph follows the input directly.
			expect(html).toMatch(
				new RegExp(`${tag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n<p class="field-error" id="${id}-error">`),
			);
		}
		expect(inputTag(html, "cardName")).not.toContain("aria-invalid");
		expect(inputTag(html, "cardNumber")).toContain("autofocus");
		expect(html).toContain("This card number is not valid. Check the digits and type it again.");
		expect(html).toContain("with a month from 01 to 12");
		expect(html).toContain("The security code is the 3 or 4 digits printed on the card.");
		expect(html).toContain('role="alert"');
		expect(inputTag(html, "cardNumber")).not.toContain("value=");
		expect(inputTag(html, "cardSecurityCode")).not.toContain("value=");
		for (const secret of ["4000000000000011", "4000 0000 0000 0011", '"98"', ">98<"])
			expect(html).not.toContain(secret);
	});

	test("a valid card number with a wrong expiry: the page asks for the number and CVC again, saying why", async () => {
		const server = await fixture.sandbox();
		const { action, token } = await session(server);
		const page = await postForm(action, {
			token,
			action: "pay",
			cardNumber: "4000 0566 5566 5556",
			cardExpiry: "1/3",
			cardSecurityCode: "123",
		});
		expect(page.status).toBe(422);
		expect(inputTag(page.text, "cardNumber")).not.toContain("aria-invalid");
		expect(inputTag(page.text, "cardExpiry")).toContain("autofocus");
		expect(page.text).toContain('<p class="hint" id="cardNumber-hint">For your safety the card number is never kept');
		expect(page.text).toContain('<p class="hint" id="cardSecurityCode-hint">');
		expect(page.text).not.toMatch(/4000 ?0566|5566 ?5556/);
		expect(server.sandbox.transactions()[0]?.status).toBe("incomplete");
	});

	test.each([
		["12/30", "12", "30"],
		[" 12 / 30 ", "12", "30"],
		["1230", "12", "30"],
		["1/30", "01", "30"],
		["12/2030", "12", "30"],
	])("the expiry %j is read as %s/%s", async (typed, month, year) => {
		const server = await fixture.sandbox();
		const { action, token, transactionId } = await session(server);
		const page = await postForm(action, {
			token,
			action: "pay",
			cardNumber: "4242424242424242",
			cardExpiry: typed,
			cardSecurityCode: "123",
		});
		expect(page.status).toBe(303);
		expect(server.sandbox.transaction(transactionId)?.paymentMethodDetails?.card).toMatchObject({
			expiryMonth: month,
			expiryYear: year,
		});
	});

	test("the 3-D Secure password is never written back; the error sits beside the field", async () => {
		const server = await fixture.sandbox();
		const data = openMessage(
			(await signedPost(server.url, "/v2/card/api", cardFields(fixture.receiver.url, "4000000000000036"))).json,
			gateway,
		);
		const url = new URL(String(data.url));
		const wrong = await postForm(`${url.origin}${url.pathname}`, {
			token: url.searchParams.get("token") ?? "",
			password: "s3cret-654321",
		});
		expect(wrong.status).toBe(422);
		expect(wrong.text).not.toContain("s3cret-654321");
		expect(inputTag(wrong.text, "password")).toContain('aria-describedby="password-error"');
		expect(wrong.text).toMatch(/<input id="password"[^>]*>\n<p class="field-error" id="password-error" role="alert">/);
	});
});

describe("every page carries the merchant's branding and a way back to the shop", () => {
	function expectBranded(html: string) {
		expect(html).toContain("<h1>Acme &amp; Co</h1>");
		expect(html).toContain('<img src="https://cdn.example/l.png" alt="">');
		expect(html).toContain("border-bottom:3px solid #ff0000");
	}
	const backHref = (html: string) =>
		(/<a class="back" id="back-to-shop" href="([^"]+)">Return to ([^<]+)<\/a>/.exec(html)?.[1] ?? "").replaceAll(
			"&amp;",
			"&",
		);

	test("the payment page: Cancel returns to the shop", async () => {
		const server = await fixture.sandbox();
		const { link } = await session(server, BRAND);
		const html = await (await fetch(link)).text();
		expectBranded(html);
		expect(html).toMatch(/id="cancel">\s*Cancel and return to Acme &amp; Co<\/button>/);
	});

	test("expired: 410, and the way back is the signed errorUrl redirect saying expired", async () => {
		const server = await fixture.sandbox({ now: "2026-11-22T10:00:00Z" });
		const { link } = await session(server, { ...BRAND, expiresAt: "2026-11-22T10:30:00Z" });
		server.sandbox.clock.advance(31 * 60_000);
		const response = await fetch(link);
		expect(response.status).toBe(410);
		const html = await response.text();
		expectBranded(html);
		expect(html).toContain("This payment link has expired");
		const back = backHref(html);
		expect(back.startsWith(`${fixture.receiver.url}/error?payload=`)).toBe(true);
		expect(openCallbackUrl(back, gateway).fields.status).toBe("expired");
	});

	test("already paid: 409, and the way back is the signed callbackUrl redirect saying successful", async () => {
		const server = await fixture.sandbox();
		const { link, action, token } = await session(server, BRAND);
		await postForm(action, { token, action: "approve" });
		const response = await fetch(link);
		expect(response.status).toBe(409);
		const html = await response.text();
		expectBranded(html);
		expect(html).toContain("Already paid");
		expect(openCallbackUrl(backHref(html), gateway).fields.status).toBe("successful");
	});

	test("3-D Secure: branded, and Cancel ends the payment as canceled and returns to cancelUrl", async () => {
		const server = await fixture.sandbox();
		const { action, token, transactionId } = await session(server, BRAND);
		const toThreeDs = await postForm(action, {
			token,
			action: "pay",
			cardNumber: "4000000000000036",
			cardExpiry: "12/30",
			cardSecurityCode: "123",
		});
		const challenge = await (await fetch(toThreeDs.location ?? "")).text();
		expectBranded(challenge);
		expect(challenge).toContain("Cancel and return to Acme &amp; Co");
		const canceled = await postForm(`${server.url}/3ds/${transactionId}`, { token, result: "cancel" });
		expect(canceled.location?.startsWith(`${fixture.receiver.url}/cancel?payload=`)).toBe(true);
		expect(server.sandbox.transaction(transactionId)?.status).toBe("canceled");
		const after = await fetch(toThreeDs.location ?? "");
		expect(after.status).toBe(409);
		const html = await after.text();
		expectBranded(html);
		expect(openCallbackUrl(backHref(html), gateway).fields.status).toBe("canceled");
	});

	test("a link with a wrong token: the merchant's branding and the shop's address, not the order", async () => {
		const server = await fixture.sandbox();
		const { action } = await session(server, { ...BRAND, orderDescription: "Secret order" });
		const response = await fetch(`${action}?token=wrong`);
		expect(response.status).toBe(404);
		const html = await response.text();
		expectBranded(html);
		expect(html).toContain("Payment link not found");
		expect(backHref(html)).toBe(`${fixture.receiver.url}/`);
		expect(html).not.toContain("Secret order");
		expect(html).not.toContain("100.00");
	});

	test("an unknown link: the page the buyer came from, when it is another site", async () => {
		const server = await fixture.sandbox();
		const unknown = `${server.url}/pay/01jd0000000000000000000000?token=x`;
		const fromShop = await fetch(unknown, { headers: { referer: "https://shop.example/basket" } });
		expect(fromShop.status).toBe(404);
		expect(backHref(await fromShop.text())).toBe("https://shop.example/basket");
		const fromHere = await fetch(unknown, { headers: { referer: `${server.url}/pay/x` } });
		expect(await fromHere.text()).not.toContain("back-to-shop");
		const unsafe = await fetch(unknown, { headers: { referer: "javascript:alert(1)" } });
		expect(await unsafe.text()).not.toContain("javascript:");
	});
});

describe("card inputs and test-card help", () => {
	test("card inputs carry the standard autocomplete tokens", async () => {
		const server = await fixture.sandbox();
		const html = await (await fetch((await session(server)).link)).text();
		expect(inputTag(html, "cardName")).toContain('autocomplete="cc-name"');
		expect(inputTag(html, "cardNumber")).toContain('autocomplete="cc-number"');
		expect(inputTag(html, "cardExpiry")).toContain('autocomplete="cc-exp"');
		expect(inputTag(html, "cardSecurityCode")).toContain('autocomplete="cc-csc"');
	});

	test("the test-card help speaks to a buyer: every card, grouped in fours, no HTTP codes or API words", async () => {
		const server = await fixture.sandbox();
		const html = await (await fetch((await session(server)).link)).text();
		const help = /<section class="help"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
		for (const card of testCards) expect(help).toContain(card.number.replace(/(\d{4})(?=\d)/g, "$1 "));
		expect(help).not.toMatch(/HTTP|\b[45]\d\d\b|status|pendingDelayMs|provider|failed \(|processing error/i);
	});
});

/** WCAG 2.x contrast of two `#rrggbb` colours, computed here independently of the sandbox's code. */
function contrastOf(a: string, b: string): number {
	const lum = (hex: string) => {
		const [r, g, b] = [1, 3, 5].map((i) => {
			const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
			return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
		}) as [number, number, number];
		return 0.2126 * r + 0.7152 * g + 0.0722 * b;
	};
	const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number];
	return (x + 0.05) / (y + 0.05);
}

/** Every CSS rule of a page that sets a text colour, with the background it sits on. */
function textColourPairs(html: string): { rule: string; color: string; background: string }[] {
	const css = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
	const pairs: { rule: string; color: string; background: string }[] = [];
	for (const [, selector = "", body = ""] of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
		const color = /(?:^|;)\s*color:([^;]+)/.exec(body)?.[1];
		if (color === undefined) continue;
		// A rule with its own background sits on it; any other sits on the white card.
		const background = /(?:^|;)\s*background:([^;]+)/.exec(body)?.[1] ?? "#fff";
		pairs.push({ rule: selector.trim(), color: color.trim(), background: background.trim() });
	}
	return pairs;
}

describe("text keeps WCAG AA contrast whatever colorMode says", () => {
	const expand = (hex: string) => (hex.length === 4 ? `#${[...hex.slice(1)].map((d) => d + d).join("")}` : hex);

	test.each([
		undefined,
		"#ff0000---navy---rgba(0,0,0,0.1)",
		"white---white---white",
		"yellow---#ffff00---black",
		"#000---#111---#000",
		"rgba(255,255,255,0.1)---lightyellow---navy",
		"#abc---#abcd---#aabbccdd",
		"rgb(10% 20% 30% / 50%)---rgb(250, 250, 250)---transparent",
		"zzz---nope---rebeccapurple",
		"lime---aqua---fuchsia",
		"#777---#888---#999",
	])("colorMode %j", async (colorMode) => {
		const server = await fixture.sandbox();
		const { link } = await session(server, colorMode === undefined ? {} : { colorMode });
		const html = await (await fetch(link)).text();
		const pairs = textColourPairs(html);
		expect(pairs.map((p) => p.rule)).toEqual(expect.arrayContaining(["body", "main", "h1", "a", "button", ".error"]));
		for (const { rule, color, background } of pairs) {
			expect(color, rule).toMatch(/^#([0-9a-f]{3}|[0-9a-f]{6})$/);
			expect(background, rule).toMatch(/^#([0-9a-f]{3}|[0-9a-f]{6})$/);
			expect(
				contrastOf(expand(color), expand(background)),
				`${rule}: ${color} on ${background}`,
			).toBeGreaterThanOrEqual(4.5);
		}
	});

	test("the merchant's colours are kept where they already read, and darkened only as far as needed", () => {
		expect(themeFrom("#ff0000---navy---#f0f0f0")).toMatchObject({ primary: "#ff0000", accent: "#000080" });
		const yellow = themeFrom("yellow---yellow---white");
		expect(yellow.primary).toBe("#ffff00");
		expect(yellow.onPrimary).toBe("#000000");
		expect(yellow.accent).not.toBe("#ffff00");
		expect(contrastOf(yellow.accent, "#ffffff")).toBeGreaterThanOrEqual(4.5);
		expect(contrastOf(yellow.accent, "#ffffff")).toBeLessThan(6);
	});
});
