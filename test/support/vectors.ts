import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The in-repo copy of the vectors (test/vectors/README.md), for clones without shared/. */
export const vectorsDir = fileURLToPath(new URL("../vectors/", import.meta.url));
/** The team's shared vectors, beside the repository in CI: the tests use them when present. */
export const sharedVectorsDir = fileURLToPath(new URL("../../../shared/vectors/", import.meta.url));
const FILE = "reference-form-vectors.json";
export const hasSharedVectors = existsSync(`${sharedVectorsDir}${FILE}`);
export const vectorsFile = `${hasSharedVectors ? sharedVectorsDir : vectorsDir}${FILE}`;

/** A known-answer vector made by PHP running the gateway's reference algorithm (see the README). */
export interface Vector {
	name: string;
	kind: "sign20" | "verify20" | "wrapped20" | "callback20" | "seal21" | "wrapped21" | "callback21";
	signer: "merchant" | "gateway";
	note?: string;
	inputText?: string;
	canonical?: string;
	signature?: string;
	message?: string;
	/** What a verifier hands out, as JSON text (2.0 kinds). */
	fields?: string;
	orderSensitive?: boolean;
	literalSensitive?: boolean;
	callbackUrl?: string;
	url?: string;
	payload?: string;
	payloadJson?: string;
	/** What a signer starts from: `inputText` parsed (sign20), the 2.1 kinds' `input`, else `fields` parsed. */
	input: Record<string, unknown>;
	/** What a verifier hands out: `fields` parsed (2.0 kinds: strings trimmed), else `input`. */
	opened: Record<string, unknown>;
}

type RawVector = Omit<Vector, "input" | "opened"> & { input?: Record<string, unknown> };

export const vectors: Vector[] = (JSON.parse(readFileSync(vectorsFile, "utf8")).vectors as RawVector[]).map((raw) => {
	const opened = raw.fields === undefined ? (raw.input ?? {}) : JSON.parse(raw.fields);
	const input = raw.inputText === undefined ? (raw.input ?? opened) : JSON.parse(raw.inputText);
	return { ...raw, input, opened };
});

/** Whether a parsed object can stand in for the text: only when neither flag is set. */
export const parsedVerifies = (v: Vector) => !v.orderSensitive && !v.literalSensitive;

export const keys = {
	merchantPrivate: readFileSync(`${vectorsDir}keys/merchant-private.pem`, "utf8"),
	merchantPublic: readFileSync(`${vectorsDir}keys/merchant-public.pem`, "utf8"),
	gatewayPrivate: readFileSync(`${vectorsDir}keys/gateway-private.pem`, "utf8"),
	gatewayPublic: readFileSync(`${vectorsDir}keys/gateway-public.pem`, "utf8"),
};

export const keyPath = (name: string) => `${vectorsDir}keys/${name}.pem`;

export function signerKeys(vector: Vector) {
	return vector.signer === "merchant"
		? { privateKey: keys.merchantPrivate, publicKey: keys.merchantPublic, otherPublicKey: keys.gatewayPublic }
		: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic, otherPublicKey: keys.merchantPublic };
}

export function vector(name: string): Vector {
	const found = vectors.find((v) => v.name === name);
	if (!found) throw new Error(`no vector ${name}`);
	return found;
}
