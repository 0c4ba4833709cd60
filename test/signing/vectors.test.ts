import { beforeAll, describe, expect, it } from "vitest";
import { SignatureVerificationError } from "../../src/index.js";
import { referenceFormOfText, routedObjectForm, routedTextForm } from "../../src/signing/canonical.js";
import { fastTextForm } from "../../src/signing/fast-form.js";
import {
	canonicalString,
	loadCryptoBackend,
	openCallbackUrl,
	openMessage,
	sealMessage,
} from "../../src/signing/index.js";
import { signText } from "../../src/signing/seal.js";
import { readTextReferenceForm } from "../../src/signing/text-form.js";
import { parsedVerifies, signerKeys, type Vector, vectors } from "../support/vectors.js";

const backends = ["node", "forge"] as const;

beforeAll(async () => {
	await loadCryptoBackend("forge");
});

type Json = unknown;
type Path = Array<string | number>;

/** Every leaf of a JSON value with its path. */
function leaves(value: Json, path: Path = []): Array<[Path, Json]> {
	if (typeof value !== "object" || value === null) return [[path, value]];
	const entries: Array<[string | number, Json]> = Array.isArray(value)
		? value.map((item, i) => [i, item])
		: Object.entries(value as Record<string, Json>);
	return entries.flatMap(([key, item]) => leaves(item, [...path, key]));
}

function withLeaf(value: Json, path: Path, replace: (leaf: Json) => Json): Json {
	if (path.length === 0) return replace(value);
	const [head, ...rest] = path as [string | number, ...Path];
	const copy = structuredClone(value) as Record<string | number, Json>;
	copy[head] = withLeaf(copy[head], rest, replace);
	return copy;
}

/** A new value for a leaf that the reference form signs differently. */
function changed(leaf: Json): Json {
	if (typeof leaf === "string") return `${leaf}x`;
	if (typeof leaf === "number") return leaf + 1;
	if (typeof leaf === "boolean") return !leaf;
	return "was null";
}

const pad = (leaf: Json) => (typeof leaf === "string" ? ` \t${leaf}\n ` : leaf);

/** The signed leaves of a 2.0 message: every leaf but the signature (and the wrapper's unsigned status/message). */
function signedLeaves(message: Json, kind: Vector["kind"]): Path[] {
	const root: Path = kind === "wrapped20" ? ["data"] : [];
	const scope = kind === "wrapped20" ? (message as { data: Json }).data : message;
	return leaves(scope)
		.map(([path]) => [...root, ...path])
		.filter((path) => path[root.length] !== "signature");
}

function base64Url(callbackUrl: string, json: string): string {
	const payload = encodeURIComponent(Buffer.from(json).toString("base64"));
	return `${callbackUrl}${callbackUrl.includes("?") ? "&" : "?"}payload=${payload}`;
}

describe("known-answer vectors (reference form, made by PHP)", () => {
	it("cover every kind", () => {
		const kinds = new Set(vectors.map((v) => v.kind));
		expect(kinds).toEqual(
			new Set(["sign20", "verify20", "wrapped20", "callback20", "seal21", "wrapped21", "callback21"]),
		);
	});

	for (const backend of backends) {
		describe(`${backend} backend`, () => {
			for (const v of vectors) describe(`${v.name} (${v.kind})`, () => runVector(v, backend));
		});
	}
});

function runVector(v: Vector, backend: "node" | "forge") {
	const { privateKey, publicKey, otherPublicKey } = signerKeys(v);
	const verify = { publicKey, backend };
	const expected = () => structuredClone(v.opened);

	if (v.kind === "sign20") {
		it("the string computed from the object is `canonical`, the signature and the body byte for byte", () => {
			const object = JSON.parse(v.inputText ?? "");
			expect(canonicalString(object)).toBe(v.canonical);
			// Both routes: the fast one (which a request's fields take) and the text reader over their JSON text.
			expect(routedObjectForm(object)).toEqual({ form: v.canonical, route: "fast" });
			expect(readTextReferenceForm(JSON.stringify(object))).toBe(v.canonical);
			const sealed = sealMessage(object, { privateKey, backend });
			expect(sealed.signature).toBe(v.signature);
			expect(JSON.stringify(sealed)).toBe(v.message);
		});
		it("the body verifies as raw text and as a parsed object, and opens to `fields`", () => {
			expect(openMessage(v.message, verify)).toEqual(JSON.parse(v.fields ?? ""));
			expect(openMessage(JSON.parse(v.message ?? ""), verify)).toEqual(JSON.parse(v.fields ?? ""));
		});
	}

	if (v.kind === "verify20" || v.kind === "wrapped20") {
		it("the raw text verifies and opens to `fields`; its reference form is `canonical`", () => {
			expect(openMessage(v.message, verify)).toEqual(expected());
			expect(referenceFormOfText(v.message ?? "", v.kind === "wrapped20")).toBe(v.canonical);
			expect(signText(v.canonical ?? "", privateKey, backend)).toBe(v.signature);
		});
		if (parsedVerifies(v))
			it("the parsed message verifies too (and, wrapped, its parsed data)", () => {
				const parsed = JSON.parse(v.message ?? "");
				expect(openMessage(parsed, verify)).toEqual(expected());
				const signedObject = v.kind === "wrapped20" ? parsed.data : parsed;
				expect(canonicalString(signedObject)).toBe(v.canonical);
				if (v.kind === "wrapped20") expect(openMessage(parsed.data, verify)).toEqual(expected());
			});
		if (!parsedVerifies(v))
			it("flagged: only the raw text verifies; the parsed object cannot", () => {
				expect(() => openMessage(JSON.parse(v.message ?? ""), verify)).toThrow(SignatureVerificationError);
			});
	}

	if (v.kind === "verify20" || v.kind === "wrapped20" || v.kind === "callback20") {
		it("both routes give `canonical`: the text reader always, the parsed object when nothing is flagged", () => {
			const text = (v.kind === "callback20" ? v.payloadJson : v.message) ?? "";
			const wrapped = v.kind === "wrapped20";
			expect(readTextReferenceForm(text, JSON.parse(text), wrapped)).toBe(v.canonical);
			expect(fastTextForm(text, JSON.parse(text), wrapped)).toBe(parsedVerifies(v) ? v.canonical : undefined);
			const route = parsedVerifies(v) ? "fast" : "text";
			expect(routedTextForm(text, JSON.parse(text), wrapped)).toEqual({ form: v.canonical, route });
		});
	}

	if (v.kind === "callback20") {
		it("the url verifies and opens to `fields`; its payload is `payloadJson`", () => {
			expect(v.url).toBe(base64Url(v.callbackUrl ?? "", v.payloadJson ?? ""));
			expect(openCallbackUrl(v.url ?? "", verify).fields).toEqual(expected());
			expect(referenceFormOfText(v.payloadJson ?? "")).toBe(v.canonical);
		});
	}

	if (v.kind === "seal21" || v.kind === "wrapped21") {
		it("verifies over the payload as written and decodes to `input`", () => {
			expect(openMessage(v.message, verify)).toEqual(v.input);
			const signature = JSON.parse(v.message ?? "").signature;
			expect(signText(v.payload ?? "", privateKey, backend)).toBe(signature);
		});
	}
	if (v.kind === "seal21") {
		it("`input` sealed by the SDK opens to `input` (the vector's payload is PHP's json_encode text)", () => {
			const sealed = sealMessage(v.input ?? {}, { privateKey, signVersion: "2.1", backend });
			expect(sealed.payload).toBe(JSON.stringify(v.input));
			expect(openMessage(sealed, verify)).toEqual(v.input);
		});
	}
	if (v.kind === "callback21") {
		it("the url decodes to `input` and verifies", () => {
			expect(openCallbackUrl(v.url ?? "", verify).fields).toEqual(v.input);
		});
	}

	it("fails with the other party's key", () => {
		if (v.kind.startsWith("callback")) {
			expect(() => openCallbackUrl(v.url ?? "", { publicKey: otherPublicKey, backend })).toThrow(
				SignatureVerificationError,
			);
		} else
			expect(() => openMessage(v.message, { publicKey: otherPublicKey, backend })).toThrow(SignatureVerificationError);
	});

	if (v.kind === "sign20" || v.kind === "verify20" || v.kind === "wrapped20" || v.kind === "callback20") {
		const text = v.kind === "callback20" ? (v.payloadJson ?? "") : (v.message ?? "");
		const open = (json: string) =>
			v.kind === "callback20"
				? openCallbackUrl(base64Url(v.callbackUrl ?? "", json), verify).fields
				: openMessage(json, verify);

		it("fails after any signed leaf changes, at any depth", () => {
			const message = JSON.parse(text);
			const paths = signedLeaves(message, v.kind);
			expect(paths.length).toBeGreaterThan(0);
			for (const path of paths) {
				const forged = JSON.stringify(withLeaf(message, path, changed));
				expect(() => open(forged), path.join(".")).toThrow(SignatureVerificationError);
			}
		});

		it("a padded string still matches the signature but is handed out trimmed, never padded", () => {
			const message = JSON.parse(text);
			const stringLeaves = new Set(
				leaves(message)
					.filter(([, leaf]) => typeof leaf === "string")
					.map(([path]) => path.join()),
			);
			const strings = signedLeaves(message, v.kind).filter((path) => stringLeaves.has(path.join()));
			expect(strings.length).toBeGreaterThan(0);
			for (const path of strings) {
				expect(open(JSON.stringify(withLeaf(message, path, pad))), path.join(".")).toEqual(expected());
			}
		});
	}
}
