import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ConfigurationError } from "../../src/index.js";
import { openMessage } from "../../src/signing/index.js";
import { createSandbox, type Sandbox, startSandboxServer } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import {
	ack,
	cardFields,
	checkoutFields,
	MERCHANT_ID,
	merchant,
	postForm,
	type Receiver,
	type SandboxServer,
	signedPost,
	startReceiver,
	tokenOf,
} from "./helpers.js";

// A sandbox on a state directory, stopped and started again in this process: what it saved, what it
// resumes, and the directories it refuses. The kill -9 test is in state-crash.test.ts.

const START = "2030-01-01T10:00:00Z";
const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
const gateway = { publicKey: keys.gatewayPublic };
const dirs: string[] = [];
const running: { close(): Promise<void> }[] = [];
let receiver: Receiver;
/** What the receiver answers to each IPN; a test may refuse them for a while. */
let answer: () => { status: number; body: string } = ack;

beforeAll(async () => {
	receiver = await startReceiver(() => answer());
});
afterAll(() => receiver.close());
afterEach(async () => {
	for (const server of running.splice(0)) await server.close();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	answer = ack;
	receiver.ipns.length = 0;
});

function stateDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "sandbox-state-"));
	dirs.push(dir);
	return join(dir, "state");
}

/** A sandbox server on `dir` with the vector merchant; options override. */
async function serve(dir: string, options: Parameters<typeof startSandboxServer>[0] = {}): Promise<SandboxServer> {
	const server = await startSandboxServer({
		stateDir: dir,
		merchants: [merchant()],
		ipn: { timeScale: 0.001 },
		...options,
	});
	running.push(server);
	return server;
}

async function stop(server: SandboxServer): Promise<void> {
	running.splice(running.indexOf(server), 1);
	await server.close();
}

async function checkout(server: SandboxServer, overrides: Record<string, unknown> = {}) {
	const response = await signedPost(server.url, "/v2/checkout", checkoutFields(receiver.url, overrides));
	expect(response.status).toBe(200);
	const fields = openMessage(response.json, { publicKey: server.sandbox.gatewayPublicKey });
	return { transactionId: String(fields.transactionId), paymentLink: String(fields.paymentLink) };
}

async function charge(server: SandboxServer, card: string): Promise<string> {
	const response = await signedPost(server.url, "/v2/card/api", cardFields(receiver.url, card));
	expect(response.status).toBe(200);
	return String(openMessage(response.json, { publicKey: server.sandbox.gatewayPublicKey }).transactionId);
}

const query = async (server: SandboxServer, transactionId: string) => {
	const response = await signedPost(server.url, "/v2/checkout/query", { transactionId });
	return openMessage(response.json, { publicKey: server.sandbox.gatewayPublicKey });
};

const ipnsOf = (id: string) =>
	receiver.ipns
		.map((ipn) => openMessage(ipn.body, gateway))
		.filter((fields) => fields.transactionId === id || fields.refundId === id);

describe("a sandbox on a state directory resumes after a restart", () => {
	test("transactions and refunds: queried, paid, refunded, approved and notified after the restart", async () => {
		const dir = stateDir();
		const first = await serve(dir, { gatewayKeys, now: START, merchants: [merchant({ refundApproval: "manual" })] });
		const session = await checkout(first);
		const paid = await charge(first, "4242424242424242");
		const held = await signedPost(first.url, "/v2/refund", { transactionId: paid, amount: 40 });
		const heldId = String(openMessage(held.json, gateway).refundId);
		await first.sandbox.whenIdle();
		const before = { transactions: first.sandbox.transactions(), refund: first.sandbox.refund(heldId) };
		await stop(first);

		// Nothing but the directory: keys, account (manual approval included) and books come from it.
		const second = await startSandboxServer({ stateDir: dir, ipn: { timeScale: 0.001 } });
		running.push(second);
		expect(second.sandbox.gatewayPublicKey).toBe(keys.gatewayPublic);
		expect(second.sandbox.clock.now().toISOString()).toBe(new Date(START).toISOString());
		expect(second.sandbox.transactions()).toEqual(before.transactions);
		expect(second.sandbox.refund(heldId)).toEqual(before.refund);
		expect(await query(second, session.transactionId)).toMatchObject({ status: "incomplete" });

		const link = new URL(session.paymentLink);
		const page = `${second.url}${link.pathname}`;
		const card = { token: tokenOf(session.paymentLink), action: "pay", cardNumber: "4242424242424242" };
		const payment = await postForm(page, { ...card, cardExpiry: "12/30", cardSecurityCode: "123", cardName: "Ada" });
		expect(payment.status).toBe(303);
		expect(await query(second, session.transactionId)).toMatchObject({ status: "successful" });

		second.sandbox.approveRefund(heldId);
		const more = await signedPost(second.url, "/v2/refund", { transactionId: session.transactionId, amount: 10 });
		expect(more.status).toBe(200);
		await second.sandbox.whenIdle();
		// The saved account still holds refunds for approval.
		expect(ipnsOf(session.transactionId).map((ipn) => ipn.status)).toEqual(["successful", "refund_under_review"]);
		expect(ipnsOf(heldId).map((ipn) => ipn.status)).toEqual(["refund_under_review", "refund_successful"]);
	});

	test("both key pairs in keys/, private keys with mode 0600; the same gateway key on every start", async () => {
		const dir = stateDir();
		const first = await serve(dir);
		const generated = first.sandbox.gatewayPublicKey;
		await stop(first);
		const keysDir = join(dir, "keys");
		expect(readdirSync(keysDir).sort()).toEqual(["gateway-private.pem", "gateway-public.pem"]);
		expect(statSync(join(keysDir, "gateway-private.pem")).mode & 0o777).toBe(0o600);
		expect(readFileSync(join(keysDir, "gateway-public.pem"), "utf8")).toBe(generated);
		const second = await serve(dir);
		expect(second.sandbox.gatewayPublicKey).toBe(generated);
	});

	test("a pending IPN delivery keeps its retry schedule across the restart", async () => {
		const dir = stateDir();
		answer = () => ({ status: 500, body: "down" });
		const first = await serve(dir, { gatewayKeys, now: START, ipn: { timeScale: 1 } });
		const paid = await charge(first, "4242424242424242");
		await first.sandbox.whenIdle();
		const [failed] = first.sandbox.deliveries();
		expect(failed).toMatchObject({ outcome: "rejected", attempt: 1 });
		const due = Date.parse(failed?.nextAttemptAt ?? "");
		expect(due).toBe(Date.parse(START) + 30 * 60_000);
		await stop(first);

		answer = ack;
		const second = await serve(dir, { gatewayKeys, ipn: { timeScale: 1 } });
		expect(second.sandbox.deliveries()).toEqual(first.sandbox.deliveries());
		second.sandbox.clock.set(due - 1);
		await second.sandbox.whenIdle();
		expect(ipnsOf(paid)).toHaveLength(1);
		second.sandbox.clock.set(due);
		await second.sandbox.whenIdle();
		expect(second.sandbox.deliveries().map((d) => [d.attempt, d.outcome])).toEqual([
			[1, "rejected"],
			[2, "acknowledged"],
		]);
		expect(ipnsOf(paid)).toHaveLength(2);
	});

	test("the clock: a frozen one stands where it was moved, a real-time one keeps its lead", async () => {
		const frozenDir = stateDir();
		const frozen = await serve(frozenDir, { gatewayKeys, now: START });
		frozen.sandbox.clock.advance(25 * 3_600_000);
		await stop(frozen);
		const resumed = await serve(frozenDir, { gatewayKeys, now: "2040-01-01T00:00:00Z" });
		expect(resumed.sandbox.clock.now().toISOString()).toBe("2030-01-02T11:00:00.000Z");

		const realDir = stateDir();
		const real = await serve(realDir, { gatewayKeys });
		real.sandbox.clock.advance(3_600_000);
		await stop(real);
		const ahead = await serve(realDir, { gatewayKeys });
		const lead = ahead.sandbox.clock.now().getTime() - Date.now();
		expect(lead).toBeGreaterThan(3_600_000 - 60_000);
		expect(lead).toBeLessThanOrEqual(3_600_000);
	});

	test("what fell due while stopped happens at the start: a session expires, a pending charge settles", async () => {
		const dir = stateDir();
		const first = await serve(dir, { gatewayKeys, now: START });
		const expiring = await checkout(first, { expiresAt: "2030-01-01T10:30:00+00:00" });
		const pending = await charge(first, "4000000000000044");
		expect(first.sandbox.transaction(pending)?.status).toBe("pending");
		await first.sandbox.whenIdle();
		await stop(first);
		// The saved clock, an hour on: both fall due as the books are restored.
		const clock = JSON.stringify({ clock: { frozenAt: Date.parse(START) + 3_600_000, offsetMs: 0 } });
		appendFileSync(join(dir, "journal.ndjson"), `${clock}\n`);
		const second = await serve(dir, { gatewayKeys });
		await second.sandbox.whenIdle();
		expect(second.sandbox.transaction(expiring.transactionId)?.status).toBe("expired");
		expect(second.sandbox.transaction(pending)?.status).toBe("successful");
		expect(ipnsOf(expiring.transactionId).map((ipn) => ipn.status)).toEqual(["expired"]);
		expect(ipnsOf(pending).map((ipn) => ipn.status)).toEqual(["successful"]);
	});

	test("merchant accounts: saved, replaced by options with the same id, added ones kept", async () => {
		const dir = stateDir();
		const first = await serve(dir, { gatewayKeys, merchants: [merchant({ brandName: "Old name" })] });
		first.sandbox.addMerchant({ merchantId: "second-shop", publicKey: keys.merchantPublic, signVersion: "2.1" });
		await stop(first);
		const sandbox = await openSandbox({ stateDir: dir, merchants: [merchant({ refundApproval: "manual" })] });
		await sandbox.close();
		const lines = readFileSync(join(dir, "journal.ndjson"), "utf8").trim().split("\n");
		const accounts = lines.flatMap((line) => {
			const entry = JSON.parse(line) as { merchant?: Record<string, unknown> };
			return entry.merchant ? [entry.merchant] : [];
		});
		expect(accounts).toEqual([expect.objectContaining({ merchantId: MERCHANT_ID, refundApproval: "manual" })]);
		const snapshot = readFileSync(join(dir, "snapshot.ndjson"), "utf8");
		expect(snapshot).toContain('"merchantId":"second-shop"');
		expect(() => sandbox.addMerchant(merchant())).toThrow(/already registered/);
	});
});

const sandboxes: Sandbox[] = [];
afterEach(async () => {
	for (const sandbox of sandboxes.splice(0)) await sandbox.close();
});

async function openSandbox(options: Parameters<typeof createSandbox>[0]): Promise<Sandbox> {
	const sandbox = await createSandbox({ gatewayKeys, ...options });
	sandboxes.push(sandbox);
	return sandbox;
}

/** The message of the ConfigurationError `attempt` rejects with. */
async function refusal(attempt: Promise<unknown>): Promise<string> {
	const error = await attempt.then(
		() => undefined,
		(reason: unknown) => reason,
	);
	expect(error).toBeInstanceOf(ConfigurationError);
	expect((error as ConfigurationError).issues.map((issue) => issue.field)).toEqual(["stateDir"]);
	return (error as Error).message;
}

describe("one sandbox per state directory", () => {
	test("a second one is refused, naming the directory and the pid that holds it; free again after close", async () => {
		const dir = stateDir();
		const first = await openSandbox({ stateDir: dir });
		const message = await refusal(createSandbox({ gatewayKeys, stateDir: dir }));
		expect(message).toContain(`${dir} is in use by the sandbox with pid ${process.pid}`);
		await first.close();
		sandboxes.splice(sandboxes.indexOf(first), 1);
		await openSandbox({ stateDir: dir });
	});

	test("a lock left by a sandbox that is gone is taken over", async () => {
		const dir = stateDir();
		await (await openSandbox({ stateDir: dir })).close();
		sandboxes.splice(0);
		const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
		const hostname = (await import("node:os")).hostname();
		writeFileSync(join(dir, "sandbox.lock"), JSON.stringify({ pid: gone, hostname }));
		const sandbox = await openSandbox({ stateDir: dir });
		expect(JSON.parse(readFileSync(join(dir, "sandbox.lock"), "utf8"))).toMatchObject({ pid: process.pid });
		await sandbox.close();
		sandboxes.splice(0);
		expect(readdirSync(dir)).not.toContain("sandbox.lock");
	});
});

describe("a state directory that cannot be read stops the start, naming the file and what to do", () => {
	/** A directory with one saved transaction, closed after a second start (which moved it into the snapshot). */
	async function saved(): Promise<string> {
		const dir = stateDir();
		const server = await serve(dir, { gatewayKeys, now: START });
		await charge(server, "4242424242424242");
		await stop(server);
		await stop(await serve(dir, { gatewayKeys }));
		return dir;
	}

	/** Starting on `dir` is refused, and leaves every file as it was. */
	async function refusedWithFilesKept(dir: string): Promise<string> {
		const files = (folder: string): Record<string, string> =>
			Object.fromEntries(
				readdirSync(folder, { recursive: true, withFileTypes: true })
					.filter((entry) => entry.isFile())
					.map((entry) => [
						join(entry.parentPath, entry.name),
						readFileSync(join(entry.parentPath, entry.name), "utf8"),
					]),
			);
		const before = files(dir);
		const message = await refusal(createSandbox({ stateDir: dir }));
		expect(files(dir)).toEqual(before);
		return message;
	}

	test("another format version", async () => {
		const dir = await saved();
		writeFileSync(
			join(dir, "state-format.json"),
			JSON.stringify({ format: "merchant-gateway sandbox state", version: 9 }),
		);
		const message = await refusedWithFilesKept(dir);
		expect(message).toContain(`${join(dir, "state-format.json")} says format version 9`);
		expect(message).toContain(`move ${dir} away to start afresh`);
	});

	test("a corrupt line in the snapshot, or a complete journal line that is not an entry", async () => {
		const dir = await saved();
		const snapshot = join(dir, "snapshot.ndjson");
		const lines = readFileSync(snapshot, "utf8").split("\n");
		writeFileSync(snapshot, lines.map((line) => line.replace(/"amountMinor":\d+/, '"amountMinor":"lots"')).join("\n"));
		const message = await refusedWithFilesKept(dir);
		expect(message).toMatch(new RegExp(`${snapshot} line \\d+ cannot be read: transaction.amountMinor is not valid`));
		expect(message).toContain("restore it from a backup");

		writeFileSync(snapshot, lines.join("\n"));
		writeFileSync(join(dir, "journal.ndjson"), "{not json}\n");
		expect(await refusedWithFilesKept(dir)).toContain(`${join(dir, "journal.ndjson")} line 1 cannot be read`);
	});

	test("a key that does not parse", async () => {
		const dir = await saved();
		writeFileSync(join(dir, "keys", "gateway-private.pem"), "-----BEGIN PRIVATE KEY-----\nnot a key\n");
		const message = await refusedWithFilesKept(dir);
		expect(message).toContain(`${join(dir, "keys", "gateway-private.pem")} is not a key the sandbox can use`);
		expect(message).toContain("put back the key that was there");
		expect(message).not.toContain("not a key\n");
	});

	test("another gateway key than the saved one", async () => {
		const dir = await saved();
		const other = { privateKey: keys.merchantPrivate, publicKey: keys.merchantPublic };
		const message = await refusal(createSandbox({ stateDir: dir, gatewayKeys: other }));
		expect(message).toContain("holds another gateway key than the one given");
	});

	test("a journal cut short in its last line (a crash mid-write) loads without that line", async () => {
		const dir = await saved();
		const journal = join(dir, "journal.ndjson");
		appendFileSync(journal, '{"clock":{"frozenAt":1,"offs');
		const sandbox = await openSandbox({ stateDir: dir });
		expect(sandbox.transactions()).toHaveLength(1);
		expect(sandbox.clock.now().toISOString()).toBe(new Date(START).toISOString());
	});
});
