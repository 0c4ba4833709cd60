import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { coreOf, sandboxOnStateDir } from "../../src/sandbox/create-sandbox.js";
import { openStateDir } from "../../src/sandbox/persistence/state-dir.js";
import { openMessage } from "../../src/signing/index.js";
import { type Sandbox, startSandboxServer } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { cardFields, checkoutFields, merchant, type Receiver, signedPost, startReceiver } from "./helpers.js";

// What the sandbox answers or lists is what is on disk: an answer waits for its change to be written, and a
// change that cannot be written leaves the books (with every change made on top of it), so a client told
// "failed" can retry without making a duplicate, and a restart or a kill -9 finds what was answered.

const START = "2030-01-01T10:00:00Z";
const TOKEN = "write-failure-control-token";
const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
let receiver: Receiver;

beforeAll(async () => {
	receiver = await startReceiver();
});
afterAll(() => receiver.close());
afterEach(async () => {
	for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	receiver.ipns.length = 0;
});

/** Journal writes as a test lets them through: at once, or held until released (then done or failed). */
class WriteGate {
	#held: PromiseWithResolvers<"write" | "fail"> | undefined;
	#arrived = Promise.withResolvers<void>();

	/** Holds the next writes until `release`. */
	hold(): void {
		this.#held = Promise.withResolvers();
		this.#arrived = Promise.withResolvers();
	}

	/** Resolves once a write is waiting at the gate. */
	arrived(): Promise<void> {
		return this.#arrived.promise;
	}

	/** Lets the held writes go to the file, or fails them as a full disk does. */
	release(outcome: "write" | "fail"): void {
		this.#held?.resolve(outcome);
		this.#held = undefined;
	}

	wrap = (file: FileHandle): FileHandle =>
		new Proxy(file, {
			get: (target, property) => {
				if (property === "write") {
					return async (buffer: Buffer, offset: number) => {
						const held = this.#held;
						if (held) {
							this.#arrived.resolve();
							if ((await held.promise) === "fail")
								throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
						}
						return target.write(buffer, offset);
					};
				}
				const value = Reflect.get(target, property, target) as unknown;
				return typeof value === "function" ? value.bind(target) : value;
			},
		});
}

function stateDir(parent?: string): string {
	const root = parent ?? mkdtempSync(join(tmpdir(), "sandbox-write-"));
	if (!parent) dirs.push(root);
	return join(root, "state");
}

/** A sandbox served over HTTP with its control API, on `dir`, its journal's writes through `gate`. */
async function serve(dir: string, gate?: WriteGate) {
	const state = await openStateDir(dir, { gatewayKeys, wrapJournalFile: gate?.wrap });
	const sandbox = await sandboxOnStateDir({ now: START, merchants: [merchant()] }, state);
	const server = await startSandboxServer({ sandbox, controlToken: TOKEN });
	const close = async () => {
		await server.close();
		await sandbox.close();
	};
	cleanups.push(close);
	return { url: server.url, sandbox, close };
}

const listed = async (url: string) => {
	const response = await fetch(`${url}/control/transactions`, { headers: { authorization: `Bearer ${TOKEN}` } });
	const json = (await response.json()) as { transactions?: { transactionId: string; refunds: unknown[] }[] };
	return { status: response.status, transactions: json.transactions };
};

const ids = (sandbox: Sandbox) => sandbox.transactions().map((transaction) => transaction.transactionId);

/** Resolves with "pending" when `promise` has not settled after the event loop ran everything it had. */
async function stillPending(promise: Promise<unknown>): Promise<boolean> {
	let settled = false;
	void promise.then(
		() => {
			settled = true;
		},
		() => {
			settled = true;
		},
	);
	for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
	return !settled;
}

describe("answers wait for the disk (a journal whose writes complete late)", () => {
	test("a checkout's answer and a control list showing it wait until its line is written", async () => {
		const gate = new WriteGate();
		const { url } = await serve(stateDir(), gate);
		gate.hold();
		const created = signedPost(url, "/v2/checkout", checkoutFields(receiver.url, { orderRef: "ORD-LATE" }));
		await gate.arrived();
		const list = listed(url);
		expect(await stillPending(created)).toBe(true);
		expect(await stillPending(list)).toBe(true);
		gate.release("write");
		const answer = await created;
		expect(answer.status).toBe(200);
		const { transactionId } = openMessage(answer.json, { publicKey: keys.gatewayPublic });
		expect((await list).transactions?.map((t) => t.transactionId)).toEqual([transactionId]);
	});
});

describe("a change that cannot be written is not in the books", () => {
	test("a charge and a refund made on top of it fail together; lists, restarts and IPNs never show them", async () => {
		const gate = new WriteGate();
		const dir = stateDir();
		const first = await serve(dir, gate);
		gate.hold();
		const fields = cardFields(receiver.url, "4242424242424242", { orderRef: "ORD-FULL" });
		const charged = signedPost(first.url, "/v2/card/api", fields);
		await gate.arrived();
		// The charge is in memory, waiting for its line: a refund of it and a list are made meanwhile.
		const [transactionId = ""] = ids(first.sandbox);
		const refunded = signedPost(first.url, "/v2/refund", { transactionId, amount: 25 });
		const core = coreOf(first.sandbox);
		const refundsOfCharge = () => {
			const transaction = core?.ledger.transaction(transactionId);
			return transaction ? (core?.ledger.refundsOf(transaction).length ?? 0) : 0;
		};
		while (refundsOfCharge() === 0) await new Promise((resolve) => setImmediate(resolve));
		gate.release("fail");

		expect((await charged).status).toBe(500);
		expect((await refunded).status).toBe(500);
		expect(await listed(first.url)).toEqual({ status: 200, transactions: [] });
		expect(ids(first.sandbox)).toEqual([]);
		await first.sandbox.whenIdle();
		expect(receiver.ipns).toEqual([]);

		// "Not created" was true: the same order goes through once the disk takes writes again.
		const again = await signedPost(first.url, "/v2/card/api", fields);
		expect(again.status).toBe(200);
		const retried = String(openMessage(again.json, { publicKey: keys.gatewayPublic }).transactionId);
		await first.sandbox.whenIdle();
		expect(receiver.ipns).toHaveLength(1);
		await first.close();

		const second = await serve(dir);
		const after = await listed(second.url);
		expect(after.transactions?.map((t) => [t.transactionId, t.refunds])).toEqual([[retried, []]]);
	});
});

const canMount = (() => {
	if (process.platform !== "linux") return "tmpfs needs Linux";
	const probe = mkdtempSync(join(tmpdir(), "tmpfs-probe-"));
	const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]);
	if (mounted.status === 0) spawnSync("umount", [probe]);
	rmSync(probe, { recursive: true, force: true });
	return mounted.status === 0 ? true : `mount -t tmpfs is not permitted here (${mounted.stderr.toString().trim()})`;
})();
if (canMount !== true) console.warn(`state-write-failures: the full-disk test is skipped: ${canMount}`);

describe.skipIf(canMount !== true)("a full disk (a small tmpfs)", () => {
	test("creates answered 500 are not there after space is freed, a restart and a kill -9; answered 200 are", async () => {
		const mountPoint = mkdtempSync(join(tmpdir(), "sandbox-full-"));
		expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", mountPoint]).status).toBe(0);
		cleanups.push(async () => {
			spawnSync("umount", [mountPoint]);
			rmSync(mountPoint, { recursive: true, force: true });
		});
		const dir = stateDir(mountPoint);
		const first = await serve(dir);
		const create = async (orderRef: string) => {
			const answer = await signedPost(first.url, "/v2/checkout", checkoutFields(receiver.url, { orderRef }));
			return answer.status === 200
				? String(openMessage(answer.json, { publicKey: keys.gatewayPublic }).transactionId)
				: answer.status;
		};
		const answered: string[] = [String(await create("ORD-0"))];
		// Fill the disk: a filler file grows until the file system refuses.
		const filler = join(mountPoint, "filler");
		const chunk = Buffer.alloc(4096, 1);
		for (let written = 0; ; written++) {
			try {
				writeFileSync(filler, chunk, { flag: "a" });
			} catch {
				break;
			}
			if (written > 1000) throw new Error("the tmpfs never filled");
		}
		const refused: { orderRef: string; status: number }[] = [];
		for (let i = 1; i <= 12; i++) {
			const result = await create(`ORD-${i}`);
			if (typeof result === "string") answered.push(result);
			else refused.push({ orderRef: `ORD-${i}`, status: result });
		}
		expect(refused.length).toBeGreaterThan(0);
		expect(new Set(refused.map((r) => r.status))).toEqual(new Set([500]));
		// While the disk is full, the control API lists what was answered, and nothing else.
		expect((await listed(first.url)).transactions?.map((t) => t.transactionId)).toEqual(answered);

		rmSync(filler);
		// A shop retrying a refused create makes its order once.
		answered.push(String(await create(refused[0]?.orderRef ?? "")));
		// What a kill -9 leaves: the files as they are now, with the sandbox still running.
		const killed = stateDir();
		mkdirSync(killed, { recursive: true });
		for (const name of ["state-format.json", "snapshot.ndjson", "journal.ndjson", "keys"])
			cpSync(join(dir, name), join(killed, name), { recursive: true });
		await first.close();

		for (const resumed of [dir, killed]) {
			const again = await serve(resumed);
			expect((await listed(again.url)).transactions?.map((t) => t.transactionId)).toEqual(answered);
			await again.close();
		}
	});
});
