import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { sandboxOnStateDir } from "../../src/sandbox/create-sandbox.js";
import { openStateDir } from "../../src/sandbox/persistence/state-dir.js";
import { startSandboxServer } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { cardFields, merchant, type Receiver, signedPost, startReceiver } from "./helpers.js";

// A running sandbox folds its journal into the snapshot once the journal passes a size, so the state
// directory stays bounded however long it runs; the files load to the same books at any moment (a kill -9
// mid-fold included, as a copy of the files taken while the sandbox runs shows).

const FOLD_AT = 8 * 1024;
const gatewayKeys = { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic };
const dirs: string[] = [];
let receiver: Receiver;

beforeAll(async () => {
	receiver = await startReceiver();
});
afterAll(() => receiver.close());
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(dir: string) {
	const state = await openStateDir(dir, { gatewayKeys, foldJournalAt: FOLD_AT });
	const sandbox = await sandboxOnStateDir({ now: "2030-01-01T10:00:00Z", merchants: [merchant()] }, state);
	const server = await startSandboxServer({ sandbox });
	return {
		url: server.url,
		sandbox,
		close: async () => {
			await server.close();
			await sandbox.close();
		},
	};
}

const sizeOf = (path: string) => statSync(path).size;

describe("the journal stays bounded while the sandbox runs", () => {
	test("60 charges and refunds: the journal stays within four times its fold size, and every copy loads", async () => {
		const root = mkdtempSync(join(tmpdir(), "sandbox-fold-"));
		dirs.push(root);
		const dir = join(root, "state");
		const running = await serve(dir);
		const journal = join(dir, "journal.ndjson");
		const snapshot = join(dir, "snapshot.ndjson");
		let largestJournal = 0;
		const copies: { dir: string; transactions: number }[] = [];
		for (let i = 0; i < 60; i++) {
			const charged = await signedPost(
				running.url,
				"/v2/card/api",
				cardFields(receiver.url, "4242424242424242", { orderRef: `ORD-${i}` }),
			);
			expect(charged.status).toBe(200);
			const [latest] = running.sandbox.transactions().slice(-1);
			const refunded = await signedPost(running.url, "/v2/refund", {
				transactionId: latest?.transactionId,
				amount: 10,
			});
			expect(refunded.status).toBe(200);
			largestJournal = Math.max(largestJournal, sizeOf(journal));
			if (i % 20 === 19) {
				// What a kill -9 would leave now, fold or not.
				const copy = join(root, `copy-${i}`);
				mkdirSync(copy);
				for (const name of ["state-format.json", "snapshot.ndjson", "journal.ndjson", "keys"])
					cpSync(join(dir, name), join(copy, name), { recursive: true });
				copies.push({ dir: copy, transactions: i + 1 });
			}
		}
		await running.sandbox.whenIdle();
		// Folds ran while it was running: the snapshot holds transactions made after the start.
		expect(readFileSync(snapshot, "utf8")).toContain("ORD-45");
		// The fold size plus what arrives while one fold runs (a few requests' lines here), against about
		// 300 KB written in all.
		expect(largestJournal).toBeLessThan(4 * FOLD_AT);
		const before = running.sandbox.transactions();
		await running.close();

		const again = await serve(dir);
		expect(again.sandbox.transactions()).toEqual(before);
		await again.close();
		for (const copy of copies) {
			const resumed = await serve(copy.dir);
			expect(resumed.sandbox.transactions()).toEqual(before.slice(0, copy.transactions));
			await resumed.close();
		}
	}, 60_000);
});
