import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { openMessage } from "../../src/signing/index.js";
import { keyPath, keys } from "../support/vectors.js";
import { runCliProcess } from "./spawn.js";

/** `merchant-gateway sign` on a card charge: what reaches the terminal, and the file --unredacted-out writes. */

const CARD_NUMBER = "4111111111111111";
const SECURITY_CODE = "987";
const charge = {
	merchantId: "M-1001",
	orderRef: "ORD-7",
	amount: 25,
	currency: "EUR",
	paymentMethod: "card",
	cardNumber: CARD_NUMBER,
	cardMonth: "09",
	cardYear: "29",
	cardSecurityCode: SECURITY_CODE,
	billingFirstName: "Ada",
	billingLastName: "Lovelace",
	billingEmail: "ada@example.com",
};
const dir = mkdtempSync(join(tmpdir(), "mg-sign-redaction-"));
const chargeFile = join(dir, "charge.json");
writeFileSync(chargeFile, JSON.stringify(charge));
const signArgs = (...more: string[]) => ["sign", chargeFile, "--key", keyPath("merchant-private"), ...more];

/** No trace of the card number (grouped or not) or the security code, and no signature that would let them be found. */
function expectNoCardData(text: string): void {
	expect(text.replace(/[ -]/g, "")).not.toContain(CARD_NUMBER);
	expect(text).not.toMatch(new RegExp(`(?<!\\d)${SECURITY_CODE}(?!\\d)`));
	// An RSA-2048 signature is 344 base64 characters.
	expect(text).not.toMatch(/[A-Za-z0-9+/]{300,}={0,2}/);
}

describe("sign on a card charge prints no card data", () => {
	test.each([
		["2.0, the canonical string", []],
		["2.1, the payload", ["--sign-version", "2.1"]],
		["2.0 --message", ["--message"]],
		["2.1 --message", ["--message", "--sign-version", "2.1"]],
		["--explain with --key", ["--explain"]],
	])("%s", async (_, more) => {
		const result = await runCliProcess(signArgs(...more));
		expect(result.code).toBe(0);
		expectNoCardData(result.out);
		expectNoCardData(result.err);
		expect(result.out).toContain("411111******1111");
		expect(`${result.out}${result.err}`.replace(/\s+/g, " ")).toContain(
			"--unredacted-out <file> writes the complete signed message to a new file.",
		);
	});

	test("--message stays JSON: the card number masked, the code and the signature redacted", async () => {
		const result = await runCliProcess(signArgs("--message"));
		expect(JSON.parse(result.out)).toEqual({
			...charge,
			cardNumber: "411111******1111",
			cardSecurityCode: "[redacted]",
			signature: "[redacted]",
		});
	});

	test("a message without card data still shows its signature", async () => {
		const plain = join(dir, "plain.json");
		const { cardNumber: _n, cardSecurityCode: _c, cardMonth: _m, cardYear: _y, ...rest } = charge;
		writeFileSync(plain, JSON.stringify(rest));
		const result = await runCliProcess(["sign", plain, "--key", keyPath("merchant-private"), "--message"]);
		expect(result.code).toBe(0);
		expect(openMessage(JSON.parse(result.out), { publicKey: keys.merchantPublic })).toMatchObject({
			orderRef: "ORD-7",
		});
	});
});

describe("--unredacted-out <file>", () => {
	test("writes the complete signed message to a new file (mode 600), the terminal still redacted", async () => {
		const out = join(dir, "complete.json");
		const result = await runCliProcess(signArgs("--unredacted-out", out));
		expect(result.code).toBe(0);
		expectNoCardData(result.out);
		expect(result.err).toBe(`merchant-gateway sign: the complete signed message, card data included, is in ${out}\n`);
		const written = JSON.parse(readFileSync(out, "utf8"));
		expect(written).toMatchObject({ cardNumber: CARD_NUMBER, cardSecurityCode: SECURITY_CODE });
		expect(openMessage(written, { publicKey: keys.merchantPublic })).toMatchObject({ cardNumber: CARD_NUMBER });
		expect(statSync(out).mode & 0o777).toBe(0o600);
	});

	test("2.1: the file holds the payload, its version and its signature", async () => {
		const out = join(dir, "complete-21.json");
		const result = await runCliProcess(signArgs("--sign-version", "2.1", "--unredacted-out", out));
		expect(result.code).toBe(0);
		const written = JSON.parse(readFileSync(out, "utf8"));
		expect(JSON.parse(written.payload)).toEqual(charge);
		expect(openMessage(written, { publicKey: keys.merchantPublic })).toMatchObject({ cardNumber: CARD_NUMBER });
	});

	test("refuses standard output, a terminal or device, and an existing file; prints nothing then", async () => {
		const existing = join(dir, "existing.json");
		writeFileSync(existing, "keep me");
		const [dash, stdout, tty, again] = await Promise.all([
			runCliProcess(signArgs("--unredacted-out", "-")),
			runCliProcess(signArgs("--unredacted-out", "/dev/stdout")),
			runCliProcess(signArgs("--unredacted-out", "/dev/tty")),
			runCliProcess(signArgs("--unredacted-out", existing)),
		]);
		expect(dash.code).toBe(2);
		expect(dash.err).toContain("--unredacted-out writes card data to a file only, never to standard output");
		for (const device of [stdout, tty]) {
			expect(device.code).toBe(1);
			expect(device.err).toMatch(/is a terminal, a device or standard output: it writes card data to a new file only/);
		}
		expect(again.code).toBe(1);
		expect(again.err).toContain(`cannot write --unredacted-out ${existing}: it already exists (EEXIST)`);
		expect(readFileSync(existing, "utf8")).toBe("keep me");
		for (const result of [dash, stdout, tty, again]) {
			expect(result.out).toBe("");
			expectNoCardData(result.err);
		}
		expect(existsSync(join(dir, "-"))).toBe(false);
	});

	test("the help names the flag and says what it writes, and where never", async () => {
		const { out } = await runCliProcess(["sign", "--help"]);
		expect(out).toMatch(/^ {6}--unredacted-out <file> Also write the complete signed message with its$/m);
		expect(out.replace(/\s+/g, " ")).toContain(
			"card number and security code to <file>, a new file; never standard output or a terminal",
		);
	});
});
