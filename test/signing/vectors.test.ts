import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalString, loadCryptoBackend, openCallbackUrl, openMessage, SignatureVerificationError, sealMessage } from "../../src/index.js";
import { signText } from "../../src/signing/seal.js";
import { hasSharedVectors, sharedVectorsDir, signerKeys, type Vector, vectors, vectorsDir } from "../helpers/vectors.js";

const backends = ["node", "forge"] as const;

beforeAll(async () => {
	await loadCryptoBackend("forge");
});

/** Every way to change one field of a vector's input: a new value of each leaf. */
function mutations(input: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
	const out: Array<[string, Record<string, unknown>]> = [];
	for (const key of Object.keys(input)) {
		const value = input[key];
		const changed =
			typeof value === "string"
				? `${value}x`
				: typeof value === "number"
					? value + 1
					: typeof value === "boolean"
						? !value
						: value === null
							? "null?"
							: { changed: true };
		out.push([key, { ...input, [key]: changed }]);
	}
	return out;
}

describe("known-answer vectors", () => {
	// shared/ sits beside the repository in CI; a merchant's clone has only the in-repo copy.
	it.skipIf(!hasSharedVectors)("the in-repo copy is identical to the shared vectors", () => {
		expect(readFileSync(`${vectorsDir}signing-vectors.json`, "utf8")).toBe(readFileSync(`${sharedVectorsDir}signing-vectors.json`, "utf8"));
	});

	it("covers every kind", () => {
		expect(new Set(vectors.map((v) => v.kind))).toEqual(new Set(["seal20", "seal21", "wrapped20", "wrapped21", "callback20", "callback21"]));
	});

	for (const backend of backends) {
		describe(`${backend} backend`, () => {
			for (const v of vectors) {
				describe(`${v.name} (${v.kind})`, () => runVector(v, backend));
			}
		});
	}
});

function runVector(v: Vector, backend: "node" | "forge") {
	const { privateKey, publicKey, otherPublicKey } = signerKeys(v);

	if (v.kind === "seal20") {
		it("canonical string byte for byte", () => {
			expect(canonicalString(v.input)).toBe(v.canonical);
		});
		it("signature byte for byte", () => {
			expect(sealMessage(v.input, { privateKey, backend }).signature).toBe(v.signature);
		});
		it("message verifies and opens to the input", () => {
			expect(openMessage(v.message, { publicKey, backend })).toEqual(v.input);
		});
	}
	if (v.kind === "seal21") {
		it("message verifies over the payload as written and decodes to the input", () => {
			expect(openMessage(v.message, { publicKey, backend })).toEqual(v.input);
		});
		it("signing the payload text exactly as written gives the signature", () => {
			// RSA PKCS#1 v1.5 is deterministic: same bytes, same signature.
			expect(signText(v.payload ?? "", privateKey, backend)).toBe(v.signature);
			expect((JSON.parse(v.message ?? "") as { signature: string }).signature).toBe(v.signature);
		});
		it("a message sealed by the SDK from the input opens to the input", () => {
			const sealed = sealMessage(v.input, { privateKey, signVersion: "2.1", backend });
			expect(openMessage(sealed, { publicKey, backend })).toEqual(v.input);
		});
	}
	if (v.kind === "wrapped20") {
		it("canonical string of data byte for byte", () => {
			expect(canonicalString(v.input)).toBe(v.canonical);
		});
		it("data opens (as message.data and as the whole wrapper)", () => {
			const message = JSON.parse(v.message ?? "");
			expect(openMessage(message.data, { publicKey, backend })).toEqual(v.input);
			expect(openMessage(message, { publicKey, backend })).toEqual(v.input);
		});
	}
	if (v.kind === "wrapped21") {
		it("payload opens to the input", () => {
			expect(openMessage(v.message, { publicKey, backend })).toEqual(v.input);
		});
	}
	if (v.kind === "callback20" || v.kind === "callback21") {
		it("url decodes to the input and verifies", () => {
			expect(openCallbackUrl(v.url ?? "", { publicKey, backend }).fields).toEqual(v.input);
		});
		it("fails with the other party's key", () => {
			expect(() => openCallbackUrl(v.url ?? "", { publicKey: otherPublicKey, backend })).toThrow(SignatureVerificationError);
		});
		return;
	}

	it("fails with the other party's key", () => {
		expect(() => openMessage(v.message, { publicKey: otherPublicKey, backend })).toThrow(SignatureVerificationError);
	});

	it("fails after any single field of the input changes", () => {
		const message = JSON.parse(v.message ?? "");
		const cases = mutations(v.input);
		expect(cases.length).toBeGreaterThan(1);
		for (const [field, changed] of cases) {
			let forged: Record<string, unknown>;
			if (v.kind === "seal20") forged = { ...changed, signature: message.signature };
			else if (v.kind === "wrapped20") forged = { ...message, data: { ...changed, signature: message.data.signature } };
			else forged = { ...message, payload: JSON.stringify(changed) };
			expect(() => openMessage(forged, { publicKey, backend }), field).toThrow(SignatureVerificationError);
		}
	});
}
