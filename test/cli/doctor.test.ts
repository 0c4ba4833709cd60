import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flatStringifiedForm, nodeSnippetForm, retiredFirstDraftForm } from "../../src/index.js";
import { sealMessage } from "../../src/signing/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keyPath, keys } from "../support/vectors.js";
import { runCliProcess } from "./spawn.js";

/** A transaction IPN on which the 2.0 forms all differ (test/signing/forms.test.ts). */
const fields = {
	transactionId: "01k0svjxa7rxj0wwz0cqb85r6a",
	ref: "order/1",
	status: " successful ",
	amount: 10.5,
	currency: "EUR",
	message: null,
	Zeta: "z",
	fees: { operate: 1.5, buyer: " 0 ", seller: null },
	name: "Zoë",
};

const dir = mkdtempSync(join(tmpdir(), "mg-doctor-"));
function file(name: string, text: string): string {
	const path = join(dir, name);
	writeFileSync(path, text);
	return path;
}
const gatewayKey = keyPath("gateway-public");

describe("merchant-gateway doctor", () => {
	it("an IPN file signed with the NodeJS snippet: names the form and the option, exit 0", async () => {
		const body = JSON.stringify(
			sealMessage(fields, { privateKey: keys.gatewayPrivate, signedString: nodeSnippetForm }),
		);
		const result = await runCliProcess(["doctor", file("ipn-node.json", body), "--gateway-key", gatewayKey]);
		expect(result.err).toBe("");
		expect(result.code).toBe(0);
		expect(result.out).toContain("Verdict: the node-snippet form verifies this message.");
		expect(result.out).toContain("node-snippet (2.0): VERIFIES with key 1");
		expect(result.out).toContain(`    ${nodeSnippetForm(fields)}\n`);
		expect(result.out).toContain("reference (2.0): does not verify");
		expect(result.out).toContain("new GatewayClient({ ...options, signedString: nodeSnippetForm });");
	});

	it("a 2.1 IPN from standard input: the payload form, exit 0", async () => {
		const body = JSON.stringify(sealMessage(fields, { privateKey: keys.gatewayPrivate, signVersion: "2.1" }));
		const result = await runCliProcess(["doctor", "-", "-g", gatewayKey], body);
		expect(result.code).toBe(0);
		expect(result.out).toContain("Verdict: the payload-2.1 form verifies this message.");
		expect(result.out).toContain('signVersion: "2.1"');
	});

	it("a callback URL given directly, flattened form: exit 0 and the advice", async () => {
		const url = sealCallbackUrl("https://shop.example/return?order=1", fields, {
			privateKey: keys.gatewayPrivate,
			signedString: flatStringifiedForm,
		});
		const result = await runCliProcess(["doctor", url, "-g", gatewayKey]);
		expect(result.code).toBe(0);
		expect(result.out).toContain("Message:   a callback redirect, signVersion 2.0");
		expect(result.out).toContain("Verdict: the flat-stringified form verifies this message.");
		expect(result.out).toContain("decodeCallback(urlOrQuery, { ...options, signedString: flatStringifiedForm });");
	});

	it("a wrapped response in the retired form, keys of a rotation: says which key; --json reports", async () => {
		const data = sealMessage(fields, { privateKey: keys.gatewayPrivate, signedString: retiredFirstDraftForm });
		const path = file("wrapped.json", JSON.stringify({ status: "success", message: "ok", data }));
		const keysArgs = ["-g", keyPath("merchant-public"), "-g", gatewayKey];
		const [text, json] = await Promise.all([
			runCliProcess(["doctor", path, ...keysArgs]),
			runCliProcess(["doctor", path, ...keysArgs, "--json"]),
		]);
		expect(text.code).toBe(0);
		expect(text.out).toContain("Keys:      key 1 (2048 bits), key 2 (2048 bits)");
		expect(text.out).toContain("retired-first-draft (2.0): VERIFIES with key 2");
		expect(json.code).toBe(0);
		expect(JSON.parse(json.out)).toMatchObject({
			verified: true,
			form: "retired-first-draft",
			message: { shape: "wrapped" },
		});
	});

	it("a message no form verifies: says so with the likely causes, exit 1", async () => {
		const body = JSON.stringify(sealMessage(fields, { privateKey: keys.merchantPrivate }));
		const result = await runCliProcess(["doctor", file("other-key.json", body), "-g", gatewayKey]);
		expect(result.code).toBe(1);
		expect(result.out).toContain("Verdict: NO form verifies this message.");
		expect(result.out).toContain(
			"Likely causes, most specific first:\n  1. The message was signed by another key than the one(s) given",
		);
		expect(result.out).toMatch(/\n {2}\d\. The message was tampered with or forged: /);
		expect(result.out).not.toContain("What to do:");
	});

	it("prints no card number, CVV or key material", async () => {
		const charge = {
			...fields,
			cardNumber: "4111111111111112",
			cardSecurityCode: "123",
			card: { cvv: "987" },
			key: keys.merchantPrivate,
		};
		const body = JSON.stringify(
			sealMessage(charge, { privateKey: keys.gatewayPrivate, signedString: flatStringifiedForm }),
		);
		const result = await runCliProcess(["doctor", file("card.json", body), "-g", gatewayKey]);
		expect(result.code).toBe(0);
		expect(result.out).toContain("411111******1112");
		for (const secret of ["4111111111111112", "PRIVATE KEY", '"123"', "987"]) expect(result.out).not.toContain(secret);
	});

	it("bad usage exits 2 with the reason on stderr", async () => {
		const [noKey, twoFiles, help] = await Promise.all([
			runCliProcess(["doctor", "-"], "{}"),
			runCliProcess(["doctor", "a", "b", "-g", gatewayKey]),
			runCliProcess(["doctor", "--help"]),
		]);
		expect(noKey.code).toBe(2);
		expect(noKey.err).toContain("--gateway-key <file> is required");
		expect(twoFiles.code).toBe(2);
		expect(help.code).toBe(0);
		expect(help.out).toContain("Usage: merchant-gateway doctor <file|-|url> --gateway-key <file>");
	});

	it("an unreadable file or a message of no known form exits 1 with the reason on stderr", async () => {
		const [missing, garbage] = await Promise.all([
			runCliProcess(["doctor", join(dir, "nope.json"), "-g", gatewayKey]),
			runCliProcess(["doctor", "-", "-g", gatewayKey], "[1,2]"),
		]);
		expect(missing.code).toBe(1);
		expect(missing.err).toContain("cannot read");
		expect(garbage.code).toBe(1);
		expect(garbage.err).toMatch(/^merchant-gateway doctor: MalformedMessageError: /);
		expect(garbage.out).toBe("");
	});
});
