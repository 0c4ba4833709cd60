import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { sealMessage } from "../../src/signing/index.js";
import { sealCallbackUrl } from "../../src/testing.js";
import { keyPath, keys } from "../support/vectors.js";
import { SANDBOX_READY } from "./control-support.js";
import { runCliProcess, startCliProcess } from "./spawn.js";

const COMMANDS = ["sandbox", "checkout", "keygen", "decode-callback", "verify-ipn", "sign", "doctor"];
const dir = mkdtempSync(join(tmpdir(), "mg-flags-"));
const file = (name: string, text: string) => {
	const path = join(dir, name);
	writeFileSync(path, text);
	return path;
};
const ipnBody = JSON.stringify(
	sealMessage(
		{
			transactionId: "01JD0000000000000000000000",
			ref: "o-1",
			currency: "EUR",
			amount: 10,
			status: "successful",
			statusCode: 6,
		},
		{ privateKey: keys.gatewayPrivate },
	),
);

describe("one spelling per meaning across commands", () => {
	/** Every `-x, --long` pair and every `--long` of each command's --help. */
	async function helpFlags() {
		const pairs: { command: string; short: string | undefined; long: string }[] = [];
		for (const command of COMMANDS) {
			const { out, code } = await runCliProcess([command, "--help"]);
			expect(code).toBe(0);
			const options = out.slice(out.indexOf("Options:"), out.indexOf("Exit codes"));
			for (const match of options.matchAll(/^ {2}(?:-([a-zA-Z]), | {4})--([a-z-]+)/gm))
				pairs.push({ command, short: match[1], long: match[2] ?? "" });
		}
		return pairs;
	}

	test("a short flag stands for one long flag in every command, and a long flag has one short form", async () => {
		const pairs = await helpFlags();
		const longOf = new Map<string, Set<string>>();
		const shortOf = new Map<string, Set<string>>();
		for (const { short, long } of pairs) {
			if (short) longOf.set(short, (longOf.get(short) ?? new Set()).add(long));
			shortOf.set(long, (shortOf.get(long) ?? new Set()).add(short ?? ""));
		}
		expect([...longOf].filter(([, longs]) => longs.size > 1)).toEqual([]);
		expect([...shortOf].filter(([, shorts]) => shorts.size > 1)).toEqual([]);
		const where = (long: string) => pairs.filter((p) => p.long === long).map((p) => p.command);
		// The private key a command signs with, its passphrase, the gateway's public key.
		expect(where("key")).toEqual(["sandbox", "checkout", "sign"]);
		expect(where("passphrase")).toEqual(where("key"));
		expect(where("gateway-key")).toEqual(["checkout", "decode-callback", "verify-ipn", "doctor"]);
		expect(where("keys-dir")).toEqual(["sandbox", "checkout", "keygen"]);
		expect(longOf.get("k")).toEqual(new Set(["key"]));
		expect(longOf.get("g")).toEqual(new Set(["gateway-key"]));
		expect(longOf.get("m")).toEqual(new Set(["merchant-id"]));
	});

	test("the old spellings still work, each with a deprecation warning naming its replacement", async () => {
		const verify = await runCliProcess(["verify-ipn", "-", "-k", keyPath("gateway-public")], ipnBody);
		expect(verify.code).toBe(0);
		expect(verify.err).toBe(
			"merchant-gateway verify-ipn: -k is deprecated; use --gateway-key " +
				"(-k now means --key, the private key a command signs with)\n",
		);
		const attached = await runCliProcess(["verify-ipn", "-", `-k${keyPath("gateway-public")}`], ipnBody);
		expect(attached.code).toBe(0);
		const url = sealCallbackUrl(
			"https://shop.example/return",
			{ status: "successful", transactionId: "01JD0000000000000000000000", ref: "o-1", amount: 10, currency: "EUR" },
			{ privateKey: keys.gatewayPrivate },
		);
		const decode = await runCliProcess(["decode-callback", url, "-k", keyPath("gateway-public")]);
		expect(decode.code).toBe(0);
		expect(decode.err).toContain("-k is deprecated; use --gateway-key");

		const sign = await runCliProcess(["sign", "-", "--key", keyPath("merchant-private"), "-m"], '{"a":1}');
		expect(sign.code).toBe(0);
		expect(JSON.parse(sign.out)).toMatchObject({ a: 1, signature: expect.any(String) });
		expect(sign.err).toContain("-m is deprecated; use --message");

		const out = join(dir, "old-out");
		const keygen = await runCliProcess(["keygen", "--out", out, "--name", "shop"]);
		expect(keygen.code).toBe(0);
		expect(readFileSync(join(out, "shop-public.pem"), "utf8")).toContain("PUBLIC KEY");
		expect(keygen.err).toContain("--out is deprecated; use --keys-dir");
		const short = await runCliProcess(["keygen", "-o", join(dir, "old-o")]);
		expect(short.code).toBe(0);
		expect(short.err).toContain("-o is deprecated; use --keys-dir");

		const sandbox = startCliProcess([
			"sandbox",
			"--port",
			"0",
			"--merchant-key",
			keyPath("merchant-public"),
			"--gateway-private-key",
			keyPath("gateway-private"),
			"--gateway-public-key",
			keyPath("gateway-public"),
		]);
		const banner = await sandbox.waitForOutput("Press Ctrl+C");
		expect(banner).toContain(keys.gatewayPublic.trim().split("\n")[1]);
		expect(sandbox.err()).toContain("--gateway-private-key is deprecated; use --key");
		expect(sandbox.err()).toContain("--gateway-public-key is deprecated");
		sandbox.child.kill("SIGINT");
		expect((await sandbox.exited).code).toBe(0);
	});

	test("sandbox --gateway-public-key must belong to --key", async () => {
		const result = await runCliProcess([
			"sandbox",
			"--port",
			"0",
			"--key",
			keyPath("gateway-private"),
			"--gateway-public-key",
			keyPath("merchant-public"),
		]);
		expect(result.code).toBe(1);
		expect(result.err).toContain(
			`the --gateway-public-key file ${keyPath("merchant-public")} is not the public key ` +
				`of the --key file ${keyPath("gateway-private")}`,
		);
	});
});

describe("errors name the flag and the path at fault", () => {
	const missing = join(dir, "nowhere", "gateway.pem");

	test.each([
		[
			["verify-ipn", "-", "--gateway-key", missing],
			`cannot read the --gateway-key file ${missing}: no such file (ENOENT)`,
		],
		[
			["verify-ipn", join(dir, "no-body.json"), "-g", keyPath("gateway-public")],
			`cannot read the IPN body file ${join(dir, "no-body.json")}: no such file (ENOENT)`,
		],
		[["sign", "-", "--key", dir], `cannot read the --key file ${dir}: it is a directory (EISDIR)`],
		[
			["doctor", "-", "-g", keyPath("merchant-private")],
			`the --gateway-key file ${keyPath("merchant-private")} is refused`,
		],
		[["sign", "-", "--key", keyPath("merchant-public")], `the --key file ${keyPath("merchant-public")} is refused`],
		[
			["sandbox", "--port", "0", "--merchant-key", keyPath("gateway-private")],
			`the --merchant-key file ${keyPath("gateway-private")} is refused`,
		],
	])("%j", async (argv, message) => {
		const result = await runCliProcess(argv, "{}");
		expect(result.code).toBe(1);
		expect(result.err).toContain(message);
		expect(result.err).not.toContain("-----BEGIN");
		expect(result.err).not.toContain(keys.merchantPrivate.split("\n")[1]);
		expect(result.err).not.toContain(keys.gatewayPrivate.split("\n")[1]);
	});

	test("an encrypted --key without --passphrase, or with a wrong one, says which flag to fix", async () => {
		const encrypted = join(dir, "encrypted.pem");
		execFileSync("openssl", [
			"pkcs8",
			"-topk8",
			"-in",
			keyPath("merchant-private"),
			"-out",
			encrypted,
			"-passout",
			"pass:right",
		]);
		const without = await runCliProcess(["sign", "-", "--key", encrypted], "{}");
		expect(without.code).toBe(1);
		expect(without.err).toContain(`the --key file ${encrypted} is refused`);
		expect(without.err).toContain("(give it with --passphrase)");
		const wrong = await runCliProcess(["sign", "-", "--key", encrypted, "--passphrase", "wrong"], "{}");
		expect(wrong.err).toContain("(check --passphrase)");
		expect(wrong.err).not.toContain("wrong\n");
		const right = await runCliProcess(["sign", "-", "--key", encrypted, "--passphrase", "right"], "{}");
		expect(right.code).toBe(0);
	});

	test("keygen --keys-dir under a file names the directory", async () => {
		const blocker = file("a-file", "");
		const result = await runCliProcess(["keygen", "--keys-dir", join(blocker, "keys")]);
		expect(result.code).toBe(1);
		expect(result.err).toContain(`the --keys-dir directory ${join(blocker, "keys")}`);
	});

	// The key files were once written after the server started: a refusal left the sandbox running.
	test("sandbox --keys-dir with a key file it cannot use names it, exits 1 without starting, keeps it", async () => {
		const keysDir = join(dir, "taken");
		mkdirSync(keysDir);
		writeFileSync(join(keysDir, "gateway-public.pem"), "kept");
		const result = await runCliProcess(["sandbox", "--port", "0", "--keys-dir", keysDir]);
		expect(result.code).toBe(1);
		expect(result.err).toContain(
			`${join(keysDir, "gateway-public.pem")} has no gateway-private.pem beside it, so the sandbox cannot sign as ` +
				"that gateway: delete it to have a new gateway key pair saved, or give the gateway's private key with --key",
		);
		expect(result.out).not.toContain("listening");
		expect(readFileSync(join(keysDir, "gateway-public.pem"), "utf8")).toBe("kept");
	});

	test("sandbox on a port in use names --port; a bad --public-url names the rule", async () => {
		const first = startCliProcess(["sandbox", "--port", "0", "-q", "--merchant-key", keyPath("merchant-public")]);
		const port = /127\.0\.0\.1:(\d+)/.exec(await first.waitForOutput(SANDBOX_READY))?.[1] ?? "";
		const second = await runCliProcess(["sandbox", "--port", port, "--merchant-key", keyPath("merchant-public")]);
		expect(second.code).toBe(1);
		expect(second.err).toContain(`port ${port} on 127.0.0.1 is in use (EADDRINUSE): pick another --port`);
		first.child.kill("SIGTERM");
		await first.exited;
		const badUrls: [string, string][] = [
			["sandbox.example", "--public-url must be an absolute URL"],
			["ftp://sandbox.example", "--public-url must be an http(s) URL"],
			["https://sandbox.example/base", "--public-url must be an origin only"],
		];
		for (const [url, rule] of badUrls) {
			const result = await runCliProcess(["sandbox", "--port", "0", "--public-url", url]);
			expect(result.code).toBe(2);
			expect(result.err).toContain(rule);
		}
	});
});

describe("a flag a command does not know", () => {
	const balancedQuotes = (text: string) => (text.match(/"/g) ?? []).length % 2 === 0 && !/'/.test(text);

	test.each(COMMANDS)("%s: our own message, naming the option and the command's --help", async (command) => {
		const result = await runCliProcess([command, "--no-such-flag"]);
		expect(result.code).toBe(2);
		expect(result.err).toBe(
			`merchant-gateway ${command}: unknown option --no-such-flag; merchant-gateway ${command} --help lists the options\n`,
		);
		expect(balancedQuotes(result.err)).toBe(true);
	});

	test("a short flag, a typo with its likely meaning, a flag missing its value, a switch given one", async () => {
		const [short, typo, missing, valued] = await Promise.all([
			runCliProcess(["verify-ipn", "-", "-x"]),
			runCliProcess(["sign", "-", "--kye", "k.pem"]),
			runCliProcess(["verify-ipn", "-", "--gateway-key"]),
			runCliProcess(["doctor", "-", "--json=yes"]),
		]);
		expect(short.err).toBe(
			"merchant-gateway verify-ipn: unknown option -x; merchant-gateway verify-ipn --help lists the options\n",
		);
		expect(typo.err).toBe(
			"merchant-gateway sign: unknown option --kye (did you mean --key?); " +
				"merchant-gateway sign --help lists the options\n",
		);
		expect(missing.err).toBe(
			"merchant-gateway verify-ipn: --gateway-key needs a value (see merchant-gateway verify-ipn --help)\n",
		);
		expect(valued.err).toBe("merchant-gateway doctor: --json takes no value (see merchant-gateway doctor --help)\n");
		for (const result of [short, typo, missing, valued]) {
			expect(result.code).toBe(2);
			expect(balancedQuotes(result.err)).toBe(true);
		}
	});
});
