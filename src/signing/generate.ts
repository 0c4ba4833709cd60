import { InvalidKeyError } from "../errors/invalid-key-error.js";
import { type CryptoBackendName, loadCryptoBackend } from "./backend.js";

export interface GenerateKeyPairOptions {
	/** Modulus size: 2048 to 4096 bits. @default 2048 */
	bits?: number | undefined;
	/** Backend that generates the pair. @default the current default backend */
	backend?: CryptoBackendName | undefined;
}

/** A key pair as PEM text: PKCS#8 private key, SPKI public key. */
export interface GeneratedKeyPair {
	privateKey: string;
	publicKey: string;
}

/**
 * Creates a merchant key pair for onboarding: keep `privateKey` secret and hand
 * `publicKey` to the gateway.
 */
export async function generateKeyPair(options: GenerateKeyPairOptions = {}): Promise<GeneratedKeyPair> {
	const bits = options.bits ?? 2048;
	if (!Number.isInteger(bits) || bits < 2048 || bits > 4096 || bits % 8 !== 0) {
		throw new InvalidKeyError(bits < 2048 ? "too_small" : "too_large", "bits must be a multiple of 8 from 2048 to 4096.");
	}
	const backend = await loadCryptoBackend(options.backend);
	return backend.generateKeyPair(bits);
}
