import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Vectors made by an independent PHP + OpenSSL implementation (see test/vectors/README.md). */
export const vectorsDir = fileURLToPath(new URL("../vectors/", import.meta.url));
/** The team's shared copy, beside the repository in CI; the in-repo copy must match it. */
export const sharedVectorsDir = fileURLToPath(new URL("../../../shared/vectors/", import.meta.url));

export interface Vector {
	name: string;
	kind: "seal20" | "seal21" | "wrapped20" | "wrapped21" | "callback20" | "callback21";
	signer: "merchant" | "gateway";
	input: Record<string, unknown>;
	canonical?: string;
	payload?: string;
	payloadJson?: string;
	signature?: string;
	message?: string;
	url?: string;
}

export const vectors: Vector[] = JSON.parse(readFileSync(`${vectorsDir}signing-vectors.json`, "utf8")).vectors;

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

export const hasSharedVectors = existsSync(`${sharedVectorsDir}signing-vectors.json`);
