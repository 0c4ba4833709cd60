import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { keys } from "../support/vectors.js";
import { runCliProcess } from "./spawn.js";

// The CLI reads a running sandbox's control-token and sandbox.json from --state-dir and sends the one to the
// URL the other names: a control-token planted as a link to a secret file must not be sent anywhere.

let root: string;
const authorizations: (string | undefined)[] = [];
let server: ReturnType<typeof createServer>;
let url: string;
let requests = 0;

beforeAll(async () => {
	root = mkdtempSync(join(tmpdir(), "mg-cli-trust-"));
	server = createServer((request, response) => {
		requests++;
		authorizations.push(request.headers.authorization);
		response.setHeader("content-type", "application/json");
		response.end(JSON.stringify({ transactions: [] }));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	await new Promise<void>((resolve) => server.close(() => resolve()));
	rmSync(root, { recursive: true, force: true });
});

test("sandbox transactions: a control-token linked to a secret file is refused, and nothing is sent", async () => {
	const dir = join(root, "state");
	mkdirSync(dir, { mode: 0o700 });
	const secret = join(root, "secret.txt");
	writeFileSync(secret, "my-api-secret\n", { mode: 0o600 });
	symlinkSync(secret, join(dir, "control-token"));
	const running = { url, publicUrl: undefined, pid: process.pid, merchantId: "m", signVersion: "2.0" };
	writeFileSync(join(dir, "sandbox.json"), JSON.stringify(running));
	const result = await runCliProcess(["sandbox", "transactions", "--state-dir", dir]);
	expect(result.code).toBe(1);
	expect(result.err).toContain(`${join(dir, "control-token")} is a symbolic link`);
	expect(result.err).not.toContain("my-api-secret");
	expect(authorizations).toEqual([]);
});

test("checkout create --state-dir: a key file of keys/ linked elsewhere is refused, nothing sent", async () => {
	const dir = join(root, "state-keys");
	mkdirSync(join(dir, "keys"), { recursive: true, mode: 0o700 });
	const elsewhere = join(root, "someone-elses-key.pem");
	writeFileSync(elsewhere, keys.merchantPrivate, { mode: 0o600 });
	symlinkSync(elsewhere, join(dir, "keys", "merchant-private.pem"));
	writeFileSync(join(dir, "keys", "gateway-public.pem"), keys.gatewayPublic);
	const running = { url, publicUrl: undefined, pid: process.pid, merchantId: "m", signVersion: "2.0" };
	writeFileSync(join(dir, "sandbox.json"), JSON.stringify(running));
	const before = requests;
	const result = await runCliProcess([
		"checkout",
		"create",
		"--state-dir",
		dir,
		"--amount",
		"1.00",
		"--currency",
		"EUR",
	]);
	expect(result.code).toBe(1);
	expect(result.err).toContain(`${join(dir, "keys", "merchant-private.pem")} is a symbolic link`);
	expect(requests).toBe(before);
});
