import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openMessage, sealMessage } from "../../src/signing/index.js";
import { cardFields, checkoutFields, postForm } from "../sandbox/helpers.js";
import { keyPath, keys } from "../support/vectors.js";
import { type CliProcess, runCliProcess, startCliProcess } from "./spawn.js";

/** Links in what a page or a redirect holds, resolved against the URL they came from. */
const tokenOf = (link: string) => new URL(link).searchParams.get("token") ?? "";

describe("checkout create against a running sandbox", () => {
	let sandbox: CliProcess;
	let url = "";
	const keysDir = join(mkdtempSync(join(tmpdir(), "mg-checkout-")), "keys");

	beforeAll(async () => {
		sandbox = startCliProcess(["sandbox", "--port", "0", "--keys-dir", keysDir, "--ipn-time-scale", "0.001"]);
		const banner = await sandbox.waitForOutput("Press Ctrl+C");
		url = /listening on (http:\/\/[^\s]+)/.exec(banner)?.[1] ?? "";
		// The banner shows the command to run, with the sandbox's own URL and key directory.
		expect(banner).toContain(
			`checkout create --sandbox-url ${url} --keys-dir ${keysDir} -m sandbox-merchant --amount 10.00 --currency EUR`,
		);
	});
	afterAll(async () => {
		sandbox?.child.kill("SIGINT");
		await sandbox?.exited;
	});

	test("prints the payment link; paid, it ends on the stand-in shop, which verifies it and the IPN", async () => {
		const created = await runCliProcess([
			"checkout",
			"create",
			"--sandbox-url",
			url,
			"--keys-dir",
			keysDir,
			"--amount",
			"12.50",
			"--currency",
			"EUR",
			"--order-ref",
			"cli-order-1",
			"--description",
			"Two tickets",
		]);
		expect(created.err).toBe("");
		expect(created.code).toBe(0);
		const link = /^payment link:\n(\S+)$/m.exec(created.out)?.[1] ?? "";
		expect(link.startsWith(`${url}/pay/`)).toBe(true);
		expect(created.out).toContain("order ref:      cli-order-1");
		const page = await (await fetch(link)).text();
		expect(page).toContain("12.50 EUR");
		expect(page).toContain("Two tickets");
		const paid = await postForm(link.split("?")[0] ?? "", { token: tokenOf(link), action: "approve" });
		expect(paid.location?.startsWith(`${url}/demo-shop/callback?payload=`)).toBe(true);
		const landing = await fetch(paid.location ?? "");
		expect(landing.status).toBe(200);
		const shopPage = await landing.text();
		expect(shopPage).toContain("The callback's signature verifies");
		expect(shopPage).toContain('<strong id="callback-status">successful</strong>');
		const transactionId = /transaction id: (\S+)/.exec(created.out)?.[1];
		await sandbox.waitForOutput(`IPN transaction:${transactionId}:successful -> ${url}/demo-shop/ipn: acknowledged`);
	});

	test("--json prints the result for scripts", async () => {
		const created = await runCliProcess([
			"checkout",
			"create",
			"--sandbox-url",
			url,
			"--key",
			join(keysDir, "merchant-private.pem"),
			"--gateway-key",
			join(keysDir, "gateway-public.pem"),
			"--amount",
			"1",
			"--currency",
			"USD",
			"--json",
		]);
		expect(created.code).toBe(0);
		expect(JSON.parse(created.out)).toEqual({
			orderRef: expect.stringMatching(/^cli-[0-9a-f]{12}$/),
			transactionId: expect.stringMatching(/^[0-9a-z]{26}$/),
			paymentLink: expect.stringContaining(`${url}/pay/`),
		});
	});

	test("a tampered callback is refused by the stand-in shop", async () => {
		const landing = await fetch(
			`${url}/demo-shop/callback?payload=${Buffer.from('{"status":"successful"}').toString("base64")}`,
		);
		expect(landing.status).toBe(400);
		expect(await landing.text()).toContain("The callback does not verify");
	});

	test.each([
		[["--amount", "10.001", "--currency", "EUR"], 2, "--amount must be a decimal number with at most 2 decimals"],
		[["--amount", "10", "--currency", "EURO"], 2, "--currency "],
		[["--amount", "10", "--currency", "EUR", "--callback-url", "ftp://x"], 2, "--callback-url "],
		[["--amount", "10", "--currency", "EUR", "-m", "nobody"], 1, "Invalid signature with merchantId: nobody"],
		[["--amount", "10", "--currency", "EUR", "--order-ref", "cli-order-1"], 1, "orderRef"],
	])("%j is refused, naming what to fix", async (extra, code, message) => {
		const result = await runCliProcess(["checkout", "create", "--sandbox-url", url, "--keys-dir", keysDir, ...extra]);
		expect(result.err).toContain(message);
		expect(result.code).toBe(code);
	});

	test("without keys, URL or action: usage errors that name the flag", async () => {
		const cases: [string[], string][] = [
			[["checkout"], "give an action: create"],
			[
				["checkout", "create", "--amount", "1", "--currency", "EUR"],
				"--sandbox-url <url> (or --state-dir <dir>) is required",
			],
			[
				["checkout", "create", "--sandbox-url", `${url}/v2`, "--amount", "1"],
				"--sandbox-url must be the sandbox's origin",
			],
			[["checkout", "create", "--sandbox-url", url, "--amount", "1", "--currency", "EUR"], "--key <file> is required"],
		];
		for (const [argv, message] of cases) {
			const result = await runCliProcess(argv);
			expect(result.code, argv.join(" ")).toBe(2);
			expect(result.err).toContain(message);
		}
		const missingDir = join(keysDir, "..", "elsewhere");
		const noFiles = await runCliProcess([
			"checkout",
			"create",
			...["--sandbox-url", url, "--keys-dir", missingDir, "--amount", "1", "--currency", "EUR"],
		]);
		expect(noFiles.code).toBe(1);
		expect(noFiles.err).toContain(`cannot read the --keys-dir file ${join(missingDir, "merchant-private.pem")}`);
	});

	test("a sandbox that is not running is named", async () => {
		const closed = createServer();
		await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
		const nowhere = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
		await new Promise((resolve) => closed.close(resolve));
		const result = await runCliProcess([
			"checkout",
			"create",
			...["--sandbox-url", nowhere, "--keys-dir", keysDir, "--amount", "1", "--currency", "EUR"],
		]);
		expect(result.code).toBe(1);
		expect(result.err).toContain(`(is the sandbox running at --sandbox-url ${nowhere}?)`);
	});
});

describe("sandbox --public-url", () => {
	test("every link the sandbox prints or responds with uses it: banner, payment and 3DS links", async () => {
		const publicUrl = "https://pay.shop.test";
		const sandbox = startCliProcess([
			...["sandbox", "--port", "0", "--public-url", `${publicUrl}/`, "-m", "shop"],
			...["--merchant-key", keyPath("merchant-public"), "--key", keyPath("gateway-private")],
		]);
		try {
			const banner = await sandbox.waitForOutput("Press Ctrl+C");
			const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? "";
			expect(banner).toContain(`public URL:       ${publicUrl}   (every link uses it)`);
			expect(banner).toContain(`API base URL:     ${publicUrl}   (POST ${publicUrl}/v2/checkout ...)`);
			// The commands it suggests go to the listening address, which this machine reaches.
			expect(banner).toMatch(/npx merchant-gateway checkout create --state-dir \S+ --key <merchant private key file>/);
			const post = async (path: string, fields: Record<string, unknown>) => {
				const body = sealMessage({ ...fields, merchantId: "shop" }, { privateKey: keys.merchantPrivate });
				const response = await fetch(`${listening}${path}`, {
					method: "POST",
					headers: { "content-type": "application/json" },
					body: JSON.stringify(body),
				});
				return openMessage(await response.json(), { publicKey: keys.gatewayPublic });
			};
			const shop = "http://127.0.0.1:9";
			const session = await post("/v2/checkout", checkoutFields(shop));
			const link = String(session.paymentLink);
			expect(link.startsWith(`${publicUrl}/pay/`)).toBe(true);
			// Through the proxy the buyer would use: the listening address with the public link's path.
			const local = (href: string) => `${listening}${new URL(href).pathname}`;
			const threeDs = await postForm(local(link), {
				token: tokenOf(link),
				action: "pay",
				cardNumber: "4000000000000036",
				cardExpiry: "12/30",
				cardSecurityCode: "123",
			});
			expect(threeDs.location?.startsWith(`${publicUrl}/3ds/`)).toBe(true);
			const charged = await post("/v2/card/api", cardFields(shop, "4000000000000036"));
			expect(String(charged.url).startsWith(`${publicUrl}/3ds/`)).toBe(true);
		} finally {
			sandbox.child.kill("SIGINT");
			await sandbox.exited;
		}
	});
});
