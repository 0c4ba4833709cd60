import { InvalidKeyError } from "../errors/invalid-key-error.js";
import type { CryptoBackendName } from "./backend.js";
import { MAX_SIGNING_BITS, MIN_BITS } from "./keys.js";
import { loadCryptoBackend } from "./load-backend.js";

/** Options of `generateKeyPair`. */
export interface GenerateKeyPairOptions {
	/** Modulus size: a multiple of 8 from 2048 to 4096 bits. @default 2048 */
	bits?: number | undefined;
	/** Backend that generates the pair. @default the current default backend */
	backend?: CryptoBackendName | undefined;
}

/** A key pair as PEM text: PKCS#8 private key, SPKI public key. */
export interface GeneratedKeyPair {
	/** PKCS#8 PEM: keep it secret. */
	privateKey: string;
	/** SPKI PEM: what you register with the gateway. */
	publicKey: string;
}

function checkBits(bits: number): void {
	if (!Number.isInteger(bits) || bits % 8 !== 0)
		throw new InvalidKeyError("unrecognized_format", "bits must be a whole multiple of 8.");
	if (bits < MIN_BITS) throw new InvalidKeyError("too_small", `bits must be at least ${MIN_BITS}.`);
	if (bits > MAX_SIGNING_BITS)
		throw new InvalidKeyError(
			"too_large",
			`bits must be at most ${MAX_SIGNING_BITS} (the signature field holds 750 characters).`,
		);
}

/**
 * Creates a merchant key pair for onboarding: keep `privateKey` secret and hand
 * `publicKey` to the gateway.
 *
 * @throws InvalidKeyError (rejected promise) when `bits` is out of range.
 */
export async function generateKeyPair(options: GenerateKeyPairOptions = {}): Promise<GeneratedKeyPair> {
	const bits = options.bits ?? 2048;
	checkBits(bits);
	const backend = await loadCryptoBackend(options.backend);
	return backend.generateKeyPair(bits);
}
