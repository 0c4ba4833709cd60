import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { openMessage, sealMessage } from "../../src/signing/index.js";
import { cardFields } from "../sandbox/helpers.js";
import { keyPath, keys } from "../support/vectors.js";
import { type CliProcess, runCliProcess, startCliProcess } from "./spawn.js";

// `merchant-gateway sandbox --state-dir` and `--keys-dir` as real processes: restarts, a second
// sandbox on the same directory, a sandbox killed with SIGKILL (and 40 charges in flight).

const root = mkdtempSync(join(tmpdir(), "mg-sandbox-state-"));
let count = 0;
const fresh = () => join(root, `dir-${++count}`);
const running: CliProcess[] = [];
afterEach(async () => {
	for (const cli of running.splice(0)) {
		if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill("SIGKILL");
		await cli.exited;
	}
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const VECTOR_KEYS = ["--key", keyPath("gateway-private"), "--merchant-key", keyPath("merchant-public")];

/** A sandbox process, once its banner is out: its URL and banner. */
async function sandbox(args: string[]): Promise<{ cli: CliProcess; url: string; banner: string }> {
	const cli = startCliProcess(["sandbox", "--port", "0", ...args]);
	running.push(cli);
	const banner = await cli.waitForOutput("Press Ctrl+C");
	return { cli, url: /listening on (http:\/\/[^\s]+)/.exec(banner)?.[1] ?? "", banner };
}

async function stop(cli: CliProcess, signal: NodeJS.Signals = "SIGTERM") {
	cli.child.kill(signal);
	return cli.exited;
}

/** Signs and POSTs `fields` as the merchant with the vector key. */
async function post(url: string, path: string, fields: Record<string, unknown>) {
	const response = await fetch(`${url}${path}`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(sealMessage(fields, { privateKey: keys.merchantPrivate })),
	});
	const text = await response.text();
	const json = JSON.parse(text) as Record<string, unknown>;
	return { status: json.status, fields: openMessage(text, { publicKey: keys.gatewayPublic }) };
}

const charge = (url: string, orderRef: string) =>
	post(url, "/v2/card/api", cardFields("http://127.0.0.1:9", "4242424242424242", { merchantId: "shop", orderRef }));

describe("sandbox --state-dir", () => {
	test("first start saves the keys; a restart reuses them and resumes the transactions", async () => {
		const dir = fresh();
		const first = await sandbox(["--state-dir", dir, "-m", "shop"]);
		expect(first.banner).toContain(
			`state dir:        ${dir}   (keys, control credential, state; 0 transactions resumed)`,
		);
		const written = ["gateway-private.pem", "gateway-public.pem", "merchant-private.pem", "merchant-public.pem"];
		expect(first.banner).toContain(`keys written: ${written.map((name) => join(dir, "keys", name)).join(", ")}`);
		const pasted = /npx merchant-gateway (checkout create .*)$/m.exec(first.banner)?.[1] ?? "";
		expect(pasted).toContain(`--state-dir ${dir}`);
		const created = await runCliProcess(pasted.split(" ").concat("--json"));
		expect(created.code).toBe(0);
		const { transactionId } = JSON.parse(created.out) as { transactionId: string };
		const gatewayKey = readFileSync(join(dir, "keys", "gateway-public.pem"), "utf8");
		expect(await stop(first.cli)).toEqual({ code: 0, signal: null });

		const second = await sandbox(["--state-dir", dir, "-m", "shop"]);
		expect(second.banner).toContain(
			`state dir:        ${dir}   (keys, control credential, state; 1 transaction resumed)`,
		);
		expect(second.banner).toContain(`keys in:          ${join(dir, "keys")}   (reused)`);
		expect(readFileSync(join(dir, "keys", "gateway-public.pem"), "utf8")).toBe(gatewayKey);
		const merchantKey = readFileSync(join(dir, "keys", "merchant-private.pem"), "utf8");
		const query = await fetch(`${second.url}/v2/checkout/query`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(sealMessage({ transactionId }, { privateKey: merchantKey })),
		});
		expect(openMessage(await query.text(), { publicKey: gatewayKey })).toMatchObject({
			transactionId,
			status: "incomplete",
		});
	});

	test("a second sandbox on the directory exits 1 naming it and the first one's pid", async () => {
		const dir = fresh();
		const first = await sandbox(["--state-dir", dir, ...VECTOR_KEYS]);
		const second = await runCliProcess(["sandbox", "--port", "0", "--state-dir", dir, ...VECTOR_KEYS]);
		expect(second.code).toBe(1);
		expect(second.err).toContain(`${dir} is in use by the sandbox with pid ${first.cli.child.pid}`);
		expect(second.out).not.toContain("listening");
		expect((await fetch(first.url)).status).toBe(200);
	});

	test("a sandbox killed with SIGKILL leaves a lock that the next one takes over", async () => {
		const dir = fresh();
		const first = await sandbox(["--state-dir", dir, ...VECTOR_KEYS]);
		expect(readFileSync(join(dir, "sandbox.lock"), "utf8")).toContain(`"pid":${first.cli.child.pid}`);
		await stop(first.cli, "SIGKILL");
		const second = await sandbox(["--state-dir", dir, ...VECTOR_KEYS]);
		expect(readFileSync(join(dir, "sandbox.lock"), "utf8")).toContain(`"pid":${second.cli.child.pid}`);
	});

	test("SIGKILL while 40 charges are in flight: every charge that got an answer is there after a restart", async () => {
		const dir = fresh();
		const args = ["--state-dir", dir, "-m", "shop", ...VECTOR_KEYS];
		const first = await sandbox(args);
		// 40 charges, 10 in flight at every moment; SIGKILL as the 12th answer arrives, 10 or so still in flight.
		const orders = Array.from({ length: 40 }, (_, i) => `crash-${i}`);
		const answered: string[] = [];
		let refused = 0;
		const worker = async () => {
			for (let order = orders.shift(); order !== undefined; order = orders.shift()) {
				try {
					const response = await charge(first.url, order);
					expect(response.status).toBe("success");
					answered.push(String(response.fields.transactionId));
					if (answered.length === 12) first.cli.child.kill("SIGKILL");
				} catch (error) {
					if (error instanceof TypeError) refused++;
					else throw error;
				}
			}
		};
		await Promise.all(Array.from({ length: 10 }, worker));
		expect(await first.cli.exited).toEqual({ code: null, signal: "SIGKILL" });
		expect(answered.length + refused).toBe(40);
		expect(answered.length).toBeGreaterThanOrEqual(12);
		expect(answered.length).toBeLessThan(40);

		const second = await sandbox(args);
		const resumed = Number(/; (\d+) transactions? resumed\)/.exec(second.banner)?.[1]);
		expect(resumed).toBeGreaterThanOrEqual(answered.length);
		for (const transactionId of answered) {
			const query = await post(second.url, "/v2/checkout/query", { transactionId });
			expect(query.fields).toMatchObject({ transactionId, status: "successful" });
		}
	});

	test("a directory it cannot read stops the start (exit 1) naming the file; no --keys-dir with it", async () => {
		const dir = fresh();
		await stop((await sandbox(["--state-dir", dir, ...VECTOR_KEYS])).cli);
		writeFileSync(join(dir, "journal.ndjson"), "garbage\n");
		const refused = await runCliProcess(["sandbox", "--port", "0", "--state-dir", dir, ...VECTOR_KEYS]);
		expect(refused.code).toBe(1);
		expect(refused.err).toContain(`merchant-gateway sandbox: ${join(dir, "journal.ndjson")} line 1 cannot be read`);
		expect(readFileSync(join(dir, "journal.ndjson"), "utf8")).toBe("garbage\n");

		const both = await runCliProcess(["sandbox", "--state-dir", dir, "--keys-dir", fresh()]);
		expect(both.code).toBe(2);
		expect(both.err).toContain("--keys-dir and --state-dir do not go together");
	});

	test("--merchant-key other than the saved merchant key is refused, naming the file", async () => {
		const dir = fresh();
		await stop((await sandbox(["--state-dir", dir])).cli);
		const other = await runCliProcess(["sandbox", "--port", "0", "--state-dir", dir, ...VECTOR_KEYS]);
		expect(other.code).toBe(1);
		expect(other.err).toContain(`${join(dir, "keys", "gateway-private.pem")} holds another gateway key`);
		const merchantOnly = ["--merchant-key", keyPath("merchant-public")];
		const merchant = await runCliProcess(["sandbox", "--port", "0", "--state-dir", dir, ...merchantOnly]);
		expect(merchant.code).toBe(1);
		expect(merchant.err).toContain(`${join(dir, "keys", "merchant-public.pem")} holds another merchant key`);
	});
});

describe("sandbox --keys-dir", () => {
	test("a second start reuses the key files instead of failing on them", async () => {
		const keysDir = fresh();
		const first = await sandbox(["--keys-dir", keysDir]);
		expect(first.banner).toContain(`keys written: ${join(keysDir, "gateway-private.pem")},`);
		const saved = readFileSync(join(keysDir, "gateway-public.pem"), "utf8");
		await stop(first.cli);
		const second = await sandbox(["--keys-dir", keysDir]);
		expect(second.banner).toContain(`keys in:          ${keysDir}   (reused)`);
		const created = await runCliProcess([
			"checkout",
			"create",
			"--sandbox-url",
			second.url,
			"--keys-dir",
			keysDir,
			"--amount",
			"5",
			"--currency",
			"EUR",
		]);
		// The response verifies with the gateway key saved by the first start.
		expect(created.code).toBe(0);
		expect(readFileSync(join(keysDir, "gateway-public.pem"), "utf8")).toBe(saved);
	});
});
