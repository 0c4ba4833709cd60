import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../src/cli/run.js";
import { loadPrivateKey, loadPublicKey, openMessage, sealMessage } from "../../src/signing/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keyPath, keys } from "../support/vectors.js";

/** Runs the CLI in-process with captured output. `stop` ends a long-running command. */
function cli(argv: string[], stdin = "") {
	let out = "";
	let err = "";
	let stop: () => void = () => {};
	const stopped = new Promise<void>((resolve) => {
		stop = resolve;
	});
	const listeners: ((text: string) => void)[] = [];
	const done = runCli(argv, {
		stdout: (text) => {
			out += text;
			for (const l of listeners) l(out);
		},
		stderr: (text) => {
			err += text;
		},
		readStdin: async () => stdin,
		untilStopped: () => stopped,
	});
	return {
		done: done.then((code) => ({ code, out, err })),
		stop,
		/** Resolves once stdout contains `text`. */
		waitFor: (text: string) =>
			new Promise<string>((resolve) => {
				if (out.includes(text)) resolve(out);
				listeners.push((all) => all.includes(text) && resolve(all));
			}),
	};
}
const run = (argv: string[], stdin?: string) => cli(argv, stdin).done;
const tmp = () => mkdtempSync(join(tmpdir(), "mg-cli-"));

describe("usage", () => {
	test("no command: usage on stderr, exit 2; --help: usage on stdout, exit 0", async () => {
		const none = await run([]);
		expect(none.code).toBe(2);
		expect(none.err).toContain("Usage: merchant-gateway <command>");
		const help = await run(["--help"]);
		expect(help.code).toBe(0);
		for (const name of ["sandbox", "keygen", "decode-callback", "verify-ipn", "sign", "doctor"])
			expect(help.out).toContain(name);
	});

	test.each(["sandbox", "keygen", "decode-callback", "verify-ipn", "sign", "doctor"])(
		"%s --help prints its usage and exits 0",
		async (name) => {
			const result = await run([name, "--help"]);
			expect(result.code).toBe(0);
			expect(result.out).toContain(`Usage: merchant-gateway ${name}`);
			expect(result.out).toContain("Exit codes");
		},
	);

	test("unknown commands, unknown flags and missing arguments exit 2 with a message on stderr", async () => {
		expect((await run(["frobnicate"])).code).toBe(2);
		const flag = await run(["keygen", "--colour", "red"]);
		expect(flag.code).toBe(2);
		expect(flag.err).toMatch(/^merchant-gateway keygen: .*--colour/);
		const missing = await run(["verify-ipn", "body.json"]);
		expect(missing.code).toBe(2);
		expect(missing.err).toContain("--gateway-key <file> is required");
		expect((await run(["sign", "-", "--key", keyPath("merchant-private"), "--sign-version", "3.0"])).code).toBe(2);
	});
});

describe("keygen", () => {
	test("writes a private key readable only by its owner and a public key, and refuses to overwrite them", async () => {
		const dir = tmp();
		const first = await run(["keygen", "--out", dir, "--name", "shop"]);
		expect(first.code).toBe(0);
		const privatePath = join(dir, "shop-private.pem");
		expect(statSync(privatePath).mode & 0o777).toBe(0o600);
		expect(loadPrivateKey(readFileSync(privatePath, "utf8")).bits).toBe(2048);
		expect(loadPublicKey(readFileSync(join(dir, "shop-public.pem"), "utf8")).bits).toBe(2048);
		const before = readFileSync(privatePath, "utf8");
		const again = await run(["keygen", "--out", dir, "--name", "shop"]);
		expect(again.code).toBe(1);
		expect(again.err).toContain("already exists");
		expect(readFileSync(privatePath, "utf8")).toBe(before);
		expect(again.err).not.toContain("PRIVATE KEY");
	});
});

describe("sign", () => {
	test("2.0 prints the canonical string and a signature that openssl verifies with the public key", async () => {
		const dir = tmp();
		const input = join(dir, "request.json");
		writeFileSync(input, JSON.stringify({ orderRef: " A/1 ", amount: 10.5, merchantId: "m", signature: "ignored" }));
		const result = await run(["sign", input, "--key", keyPath("merchant-private")]);
		expect(result.code).toBe(0);
		const [, , canonical, , signature] = result.out.trim().split("\n");
		expect(result.out).toContain("canonical string:");
		expect(canonical).toBe('{"amount":"10.5","merchantId":"m","orderRef":"A\\/1"}');
		writeFileSync(join(dir, "signed.txt"), canonical ?? "");
		writeFileSync(join(dir, "sig.bin"), Buffer.from(signature ?? "", "base64"));
		const verified = execFileSync("openssl", [
			"dgst",
			"-md5",
			"-verify",
			keyPath("merchant-public"),
			"-signature",
			join(dir, "sig.bin"),
			join(dir, "signed.txt"),
		]);
		expect(verified.toString()).toContain("Verified OK");
	});

	test("2.1 --message reads stdin and prints a complete message that verifies", async () => {
		const result = await run(
			["sign", "-", "--key", keyPath("merchant-private"), "-v", "2.1", "--message"],
			JSON.stringify({ amount: 1 }),
		);
		expect(result.code).toBe(0);
		expect(openMessage(result.out, { publicKey: keys.merchantPublic })).toEqual({ amount: 1 });
	});

	test("input that is not a JSON object exits 1", async () => {
		const result = await run(["sign", "-", "--key", keyPath("merchant-private")], "[1,2]");
		expect(result.code).toBe(1);
		expect(result.err).toMatch(/JSON object/);
	});
});

describe("verify-ipn and decode-callback", () => {
	const transaction = {
		transactionId: "01JD0000000000000000000000",
		ref: "o-1",
		currency: "EUR",
		amount: 10,
		status: "successful",
		statusCode: 6,
	};

	test.each(["2.0", "2.1"] as const)(
		"verify-ipn verifies a %s IPN from a file and from stdin; a tampered one exits 1",
		async (signVersion) => {
			const dir = tmp();
			const body = JSON.stringify(sealMessage(transaction, { privateKey: keys.gatewayPrivate, signVersion }));
			writeFileSync(join(dir, "ipn.json"), body);
			const fromFile = await run(["verify-ipn", join(dir, "ipn.json"), "--gateway-key", keyPath("gateway-public")]);
			expect(fromFile.code).toBe(0);
			expect(JSON.parse(fromFile.out)).toMatchObject({
				type: "transaction",
				eventId: `transaction:${transaction.transactionId.toLowerCase()}:successful`,
				signVersion,
			});
			const fromStdin = await run(["verify-ipn", "-", "-g", keyPath("gateway-public")], body);
			expect(fromStdin.code).toBe(0);
			const tampered = await run(
				["verify-ipn", "-", "-g", keyPath("gateway-public")],
				body.replace("successful", "failed"),
			);
			expect(tampered.code).toBe(1);
			expect(tampered.err).toMatch(/SignatureVerificationError/);
			expect(tampered.out).toBe("");
		},
	);

	test("decode-callback prints the verified fields; a wrong key exits 1", async () => {
		const url = sealCallbackUrl(
			"https://shop.example/return?x=1",
			{ status: "successful", transactionId: transaction.transactionId, ref: "o-1", amount: 10, currency: "EUR" },
			{ privateKey: keys.gatewayPrivate },
		);
		const ok = await run(["decode-callback", url, "--gateway-key", keyPath("gateway-public")]);
		expect(ok.code).toBe(0);
		expect(JSON.parse(ok.out)).toEqual({
			status: "successful",
			transactionId: transaction.transactionId,
			ref: "o-1",
			amount: 10,
			currency: "EUR",
		});
		const wrong = await run(["decode-callback", url, "--gateway-key", keyPath("merchant-public")]);
		expect(wrong.code).toBe(1);
		expect(wrong.err).toContain("decode-callback");
	});
});

describe("sandbox", () => {
	test("starts on loopback, prints URL, merchant id and keys, logs requests, stops when asked, exits 0", async () => {
		const session = cli([
			"sandbox",
			"--port",
			"0",
			"--merchant-id",
			"cli-shop",
			"--merchant-key",
			keyPath("merchant-public"),
		]);
		const banner = await session.waitFor("Press Ctrl+C");
		const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? "";
		expect(url).not.toBe("");
		expect(banner).toContain("merchant id:      cli-shop");
		const gatewayKey = /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/.exec(banner)?.[0] ?? "";
		expect(banner).not.toContain("PRIVATE KEY");
		const body = sealMessage(
			{ merchantId: "cli-shop", transactionId: "01JD0000000000000000000000" },
			{ privateKey: keys.merchantPrivate },
		);
		const response = await fetch(`${url}/v2/checkout/query`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(body),
		});
		expect(response.status).toBe(404);
		await session.waitFor("POST /v2/checkout/query -> 404");
		expect(loadPublicKey(gatewayKey).bits).toBe(2048);
		session.stop();
		const result = await session.done;
		expect(result.code).toBe(0);
		expect(result.out).toContain("sandbox stopped");
	});

	test("refuses a non-loopback host unless allowed, with exit 1", async () => {
		const result = await run([
			"sandbox",
			"--port",
			"0",
			"--host",
			"0.0.0.0",
			"--merchant-key",
			keyPath("merchant-public"),
		]);
		expect(result.code).toBe(1);
		expect(result.err).toContain("--host 0.0.0.0 is not a loopback address: add --allow-non-loopback to listen there");
	});
});
