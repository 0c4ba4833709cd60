import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../src/cli/run.js";
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

/** `merchant-gateway sign` run in this process (as the tests above run it in a new one). */
async function signHere(argv: string[], stdin = ""): Promise<{ code: number; out: string; err: string }> {
	let out = "";
	let err = "";
	const code = await runCli(["sign", ...argv], {
		stdout: (text) => {
			out += text;
		},
		stderr: (text) => {
			err += text;
		},
		readStdin: async () => stdin,
		untilStopped: () => new Promise(() => {}),
	});
	return { code, out, err };
}
const keyArgs = ["--key", keyPath("merchant-private")];
const WITHHELD =
	"(card data is redacted here, and the signature with it: beside the visible digits it would let the\n" +
	"hidden ones be found by trial. --unredacted-out <file> writes the complete signed message to a new file.)";
const { cardNumber: _number, cardSecurityCode: _code, cardMonth: _month, cardYear: _year, ...plainCharge } = charge;

describe("what sign prints, in process", () => {
	test("2.0: the canonical string with the card number masked and the code removed, the signature withheld", async () => {
		const result = await signHere(["-", ...keyArgs], JSON.stringify(charge));
		expect(result.code).toBe(0);
		expect(result.err).toBe("");
		const lines = result.out.split("\n");
		expect(lines.slice(0, 2)).toEqual(["signVersion: 2.0", "canonical string:"]);
		expect(lines[2]).toContain('"cardNumber":"411111******1111"');
		expectNoCardData(result.out);
		expect(result.out.endsWith(`\nsignature:\n[redacted]\n${WITHHELD}\n`)).toBe(true);
	});

	test("2.1: the payload, masked, under its own label; the signature withheld", async () => {
		const result = await signHere(["-", ...keyArgs, "--sign-version", "2.1"], JSON.stringify(charge));
		expect(result.code).toBe(0);
		expect(result.out.startsWith("signVersion: 2.1\npayload:\n{")).toBe(true);
		expect(result.out).toContain('"cardNumber":"411111******1111"');
		expectNoCardData(result.out);
		expect(result.out.endsWith(`\nsignature:\n[redacted]\n${WITHHELD}\n`)).toBe(true);
	});

	test.each([
		["2.0", [], { ...charge, cardNumber: "411111******1111", cardSecurityCode: "[redacted]" }],
		["2.1", ["--sign-version", "2.1"], undefined],
	])(
		"%s --message: JSON with the card data and the signature redacted, the note on stderr",
		async (_, more, expected) => {
			const result = await signHere(["-", ...keyArgs, "--message", ...more], JSON.stringify(charge));
			expect(result.code).toBe(0);
			expectNoCardData(result.out);
			const printed = JSON.parse(result.out);
			expect(printed.signature).toBe("[redacted]");
			if (expected) expect(printed).toEqual({ ...expected, signature: "[redacted]" });
			else expect(printed.signVersion).toBe("2.1");
			expect(result.err).toBe(`merchant-gateway sign: ${WITHHELD}\n`);
		},
	);

	test("a message without card data shows its signature, which verifies, and no note", async () => {
		const text = await signHere(["-", ...keyArgs], JSON.stringify(plainCharge));
		expect(text.code).toBe(0);
		expect(text.err).toBe("");
		expect(text.out).not.toContain("[redacted]");
		const [, , canonical, label, signature] = text.out.split("\n");
		expect(label).toBe("signature:");
		const message = JSON.parse((await signHere(["-", ...keyArgs, "--message"], JSON.stringify(plainCharge))).out);
		expect(message.signature).toBe(signature);
		expect(canonical).toContain('"orderRef":"ORD-7"');
		expect(openMessage(message, { publicKey: keys.merchantPublic })).toMatchObject({ orderRef: "ORD-7" });
		const v21 = await signHere(["-", ...keyArgs, "--message", "-v", "2.1"], JSON.stringify(plainCharge));
		expect(v21.err).toBe("");
		expect(openMessage(JSON.parse(v21.out), { publicKey: keys.merchantPublic })).toEqual(plainCharge);
	});

	test("the signature field of the input is not signed over, in 2.0 and 2.1", async () => {
		const given = { ...plainCharge, signature: "from-the-input", signVersion: "2.1" };
		const v20 = await signHere(["-", ...keyArgs, "--message"], JSON.stringify(given));
		expect(openMessage(JSON.parse(v20.out), { publicKey: keys.merchantPublic })).toMatchObject({ orderRef: "ORD-7" });
		const v21 = await signHere(["-", ...keyArgs, "-v", "2.1"], JSON.stringify(given));
		expect(v21.out.split("\n")[2]).toBe(JSON.stringify(plainCharge));
	});

	test("2.1 on a 2.1 message signs its payload text as it is", async () => {
		const payload = '{"b": 1,  "a":2}';
		const result = await signHere(["-", ...keyArgs, "-v", "2.1"], JSON.stringify({ payload, signVersion: "2.1" }));
		expect(result.out.split("\n")[2]).toBe(payload);
	});

	test("--explain without --key explains with card data redacted, and reads no key", async () => {
		const result = await signHere(["-", "--explain", "--key", join(dir, "no-such-key.pem"), "-v", "2.0"], "{}");
		expect(result.code).toBe(1);
		const explained = await signHere(["-", "--explain"], JSON.stringify(charge));
		expect(explained.code).toBe(0);
		expectNoCardData(explained.out);
		expect(explained.out).toContain("411111******1111");
		expect(explained.out).not.toContain("signature:");
		expect(explained.out).not.toContain(WITHHELD);
		const signed = await signHere(["-", "--explain", ...keyArgs], JSON.stringify(charge));
		expect(signed.out).toContain(`signature:\n[redacted]\n${WITHHELD}\n`);
	});

	test.each([
		[["-", "--explain", "--message", ...keyArgs], "give --explain or --message, not both"],
		[["-", ...keyArgs, "--unredacted-out", "-"], "--unredacted-out writes card data to a file only"],
		[["-", "--explain", "--unredacted-out", "x.json"], "--unredacted-out needs --key: it writes the signed message"],
		[[...keyArgs], "give exactly one file, or - for standard input"],
		[["a.json", "b.json", ...keyArgs], "give exactly one file, or - for standard input"],
	])("%j is a usage error: %s", async (argv, message) => {
		const result = await signHere(argv, JSON.stringify(charge));
		expect(result.code).toBe(2);
		expect(result.err).toContain(message);
		expect(result.out).toBe("");
	});

	test("--help prints the help, which says what is redacted and what --unredacted-out writes", async () => {
		const result = await signHere(["--help"]);
		expect(result.code).toBe(0);
		expect(result.out.replace(/\s+/g, " ")).toContain(
			"What is printed never shows a card number or security code: the number is masked",
		);
		expect(result.out).toContain("--unredacted-out <file> Also write the complete signed message");
	});

	test("--unredacted-out writes the complete message to a new file, mode 600, and says where", async () => {
		const out = join(dir, "here-complete.json");
		const result = await signHere(["-", ...keyArgs, "--unredacted-out", out], JSON.stringify(charge));
		expect(result.code).toBe(0);
		expect(result.err).toBe(`merchant-gateway sign: the complete signed message, card data included, is in ${out}\n`);
		expectNoCardData(result.out);
		const written = JSON.parse(readFileSync(out, "utf8"));
		expect(openMessage(written, { publicKey: keys.merchantPublic })).toEqual(charge);
		expect(statSync(out).mode & 0o777).toBe(0o600);
		const out21 = join(dir, "here-complete-21.json");
		await signHere(["-", ...keyArgs, "-v", "2.1", "--unredacted-out", out21], JSON.stringify(charge));
		const written21 = JSON.parse(readFileSync(out21, "utf8"));
		expect(written21.signVersion).toBe("2.1");
		expect(JSON.parse(written21.payload)).toEqual(charge);
		expect(openMessage(written21, { publicKey: keys.merchantPublic })).toEqual(charge);
	});

	test("--unredacted-out refuses an existing file and a device, naming why, and prints nothing", async () => {
		const existing = join(dir, "here-existing.json");
		writeFileSync(existing, "keep me");
		const again = await signHere(["-", ...keyArgs, "--unredacted-out", existing], JSON.stringify(charge));
		expect(again.code).toBe(1);
		expect(again.err).toBe(
			`merchant-gateway sign: cannot write --unredacted-out ${existing}: it already exists (EEXIST); ` +
				"it is never overwritten\n",
		);
		expect(readFileSync(existing, "utf8")).toBe("keep me");
		const device = await signHere(["-", ...keyArgs, "--unredacted-out", "/dev/null"], JSON.stringify(charge));
		expect(device.code).toBe(1);
		expect(device.err).toBe(
			"merchant-gateway sign: --unredacted-out /dev/null is a terminal, a device or standard output: " +
				"it writes card data to a new file only\n",
		);
		for (const result of [again, device]) expect(result.out).toBe("");
	});

	test("--explain prints the steps to the signed string, not the plain signed string", async () => {
		const result = await signHere(["-", "--explain"], JSON.stringify({ b: 1, a: "x" }));
		expect(result.code).toBe(0);
		expect(result.out).toMatch(/^signVersion: 2\.0, signed in the gateway's reference form \(D3\)\n1\. /);
		expect(result.out).toContain('Signed string (17 bytes of UTF-8):\n{"a":"x","b":"1"}\n');
	});

	test("unreadable input names what could not be read: the message file, the --key file, a non-object", async () => {
		const noMessage = await signHere([join(dir, "no-such-message.json"), ...keyArgs]);
		expect(noMessage.err).toBe(
			`merchant-gateway sign: cannot read the message file ${join(dir, "no-such-message.json")}: no such file (ENOENT)\n`,
		);
		const noKey = await signHere(["-", "--key", join(dir, "no-such-key.pem")], "{}");
		expect(noKey.err).toBe(
			`merchant-gateway sign: cannot read the --key file ${join(dir, "no-such-key.pem")}: no such file (ENOENT)\n`,
		);
		const list = await signHere(["-", ...keyArgs], "[1,2]");
		expect(list.err).toBe("merchant-gateway sign: MalformedMessageError: The input must be a JSON object.\n");
		for (const result of [noMessage, noKey, list]) expect(result.code).toBe(1);
	});

	test("--unredacted-out in a missing directory says why it cannot write, not that it is a terminal", async () => {
		const out = join(dir, "no-such-dir", "complete.json");
		const result = await signHere(["-", ...keyArgs, "--unredacted-out", out], JSON.stringify(charge));
		expect(result.code).toBe(1);
		expect(result.err).toBe(
			`merchant-gateway sign: cannot write --unredacted-out ${out}: no such file (ENOENT); it is never overwritten\n`,
		);
	});

	test("-m still means --message, with a warning that it is deprecated", async () => {
		const result = await signHere(["-", ...keyArgs, "-m"], JSON.stringify(plainCharge));
		expect(result.code).toBe(0);
		expect(result.err).toBe("merchant-gateway sign: -m is deprecated; use --message (-m means --merchant-id)\n");
		expect(openMessage(JSON.parse(result.out), { publicKey: keys.merchantPublic })).toEqual(plainCharge);
	});

	test("--unredacted-out refuses the file standard error already writes to", async () => {
		const result = await signHere(["-", ...keyArgs, "--unredacted-out", "/proc/self/fd/2"], JSON.stringify(charge));
		expect(result.code).toBe(1);
		expect(result.err).toContain("is a terminal, a device or standard output: it writes card data to a new file only");
		expect(result.out).toBe("");
	});

	test("a message without card data writes no file note when it has no key to sign with", async () => {
		const result = await signHere(["-", "--explain", "--unredacted-out", join(dir, "x.json"), ...keyArgs], "[1]");
		expect(result.code).toBe(1);
		expect(result.err).toMatch(/JSON object/);
	});
});
