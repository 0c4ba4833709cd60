import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CryptoBackendError } from "../../src/index.js";
import { loadCryptoBackend, openMessage, sealMessage, useCryptoBackend } from "../../src/signing/index.js";
import { keys, vector } from "../support/vectors.js";

// Each test file runs in its own process (vitest forks), so node-forge starts unloaded here.
// The node backend reaches node:crypto through process.getBuiltinModule, the same exports
// object that require() returns: spying on it shows which backend did the work.
const nodeCrypto = createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto");
const checkout = vector("checkout-request-2.0");

afterEach(() => {
	vi.restoreAllMocks();
});

function signWithDefault(): { signature: string; nodeSigned: boolean } {
	const spy = vi.spyOn(nodeCrypto, "sign");
	const { signature } = sealMessage(checkout.input, { privateKey: keys.merchantPrivate });
	const nodeSigned = spy.mock.calls.length > 0;
	spy.mockRestore();
	return { signature, nodeSigned };
}

describe("choosing a crypto backend", () => {
	it("uses node:crypto by default on Node", () => {
		expect(signWithDefault()).toEqual({ signature: checkout.signature, nodeSigned: true });
	});

	it("refuses the forge backend before it is loaded, saying how to load it", () => {
		let caught: unknown;
		try {
			sealMessage(checkout.input, { privateKey: keys.merchantPrivate, backend: "forge" });
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(CryptoBackendError);
		expect((caught as Error).message).toMatch(/await useCryptoBackend\('forge'\)|loadCryptoBackend\('forge'\)/);
	});

	it("loadCryptoBackend loads node-forge without changing the default", async () => {
		await loadCryptoBackend("forge");
		expect(signWithDefault().nodeSigned).toBe(true);
		expect(sealMessage(checkout.input, { privateKey: keys.merchantPrivate, backend: "forge" }).signature).toBe(
			checkout.signature,
		);
	});

	it("useCryptoBackend('forge') makes node-forge the default; 'auto' and 'node' switch back", async () => {
		await useCryptoBackend("forge");
		const verifySpy = vi.spyOn(nodeCrypto, "verify");
		expect(signWithDefault()).toEqual({ signature: checkout.signature, nodeSigned: false });
		expect(openMessage(checkout.message, { publicKey: keys.merchantPublic })).toEqual(checkout.opened);
		expect(verifySpy).not.toHaveBeenCalled();

		await useCryptoBackend("auto");
		expect(signWithDefault()).toEqual({ signature: checkout.signature, nodeSigned: true });

		await useCryptoBackend("forge");
		await useCryptoBackend("node");
		expect(signWithDefault()).toEqual({ signature: checkout.signature, nodeSigned: true });
	});

	it("a per-call backend wins over the default", async () => {
		await useCryptoBackend("forge");
		const spy = vi.spyOn(nodeCrypto, "sign");
		expect(sealMessage(checkout.input, { privateKey: keys.merchantPrivate, backend: "node" }).signature).toBe(
			checkout.signature,
		);
		expect(spy).toHaveBeenCalledTimes(1);
		await useCryptoBackend("auto");
	});
});
