import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { type CryptoBackendName, canonicalString, loadCryptoBackend, sealMessage } from "../../src/index.js";
import { keyPath, keys } from "../helpers/vectors.js";
import { awkward } from "./awkward.js";

const script = fileURLToPath(new URL("./php/sign-reference.php", import.meta.url));
const hasPhp = spawnSync("php", ["--version"]).status === 0;
const inCi = Boolean(process.env.CI);
const backends: CryptoBackendName[] = ["node", "forge"];

interface PhpResult {
	canonical: string;
	signature: string;
	verified: boolean;
}

function php(fields: Record<string, unknown>, ourSignature: string): PhpResult {
	const request = { fields, privateKey: keyPath("merchant-private"), publicKey: keyPath("merchant-public"), signature: ourSignature };
	const result = spawnSync("php", [script], { input: JSON.stringify(request) });
	if (result.status !== 0) throw new Error(`php failed (${result.status}): ${result.stderr.toString()}`);
	return JSON.parse(result.stdout.toString()) as PhpResult;
}

beforeAll(async () => {
	await loadCryptoBackend("forge");
});

describe("PHP interop (json_encode + ksort + trim + openssl_sign MD5)", () => {
	// CI installs php-cli: there a missing php is a failure; elsewhere a visible skip.
	if (!hasPhp && inCi) {
		it("php is installed in CI", () => {
			expect(hasPhp, "php-cli is required in CI for the interop test").toBe(true);
		});
	} else if (!hasPhp) {
		it.skip("php is not installed on this machine: install php-cli to run the PHP interop test", () => {});
	}

	const messages: Array<[string, Record<string, unknown>]> = [
		["an awkward message (unicode, slashes, tabs, controls, nested, integer-like keys)", awkward],
		[
			"a checkout request with a signature already present",
			{ signature: "old", merchantId: "M-1", orderRef: "  A/B  ", amount: 10.5, currency: "EUR", metadata: { "10": 1, "9": 2, "1a": 3 } },
		],
		["keys that differ only by case and punctuation", { b: 1, B: 2, _: 3, "-": 4, a_b: 5, "a-b": 6, ab: 7, "": "empty key" }],
	];

	for (const backend of backends) {
		it.runIf(hasPhp).each(messages)(`${backend}: %s matches PHP byte for byte`, (_name, fields) => {
			const ours = sealMessage(fields, { privateKey: keys.merchantPrivate, backend });
			const reference = php(fields, ours.signature);
			expect(canonicalString(fields)).toBe(reference.canonical);
			expect(ours.signature).toBe(reference.signature);
			expect(reference.verified).toBe(true);
		});
	}

	it.runIf(hasPhp)("PHP notices a changed field (the comparison can fail)", () => {
		const ours = sealMessage(awkward, { privateKey: keys.merchantPrivate });
		const reference = php({ ...awkward, orderRef: "changed" }, ours.signature);
		expect(reference.verified).toBe(false);
		expect(reference.signature).not.toBe(ours.signature);
	});
});
