import { CryptoBackendError } from "../errors/crypto-backend-error.js";
import { nodeVersion } from "../internal/node-floor.js";
import { createNodeBackend } from "./node-backend.js";

/** Which implementation of RSA-MD5 to use. Both give byte-identical output. */
export type CryptoBackendName = "node" | "forge";

/** Key material as found in the input, before a backend parses it. */
export type KeySource =
	| { readonly encoding: "pem"; readonly label: string; readonly text: string }
	| { readonly encoding: "der"; readonly bytes: Uint8Array };

/** A key parsed by one backend. `handle` is that backend's own key object. */
export interface ParsedKey {
	readonly handle: unknown;
	/** `rsa` for RSA keys; anything else is refused by the caller. */
	readonly type: string;
	readonly bits: number;
}

/** The small surface that signing needs from a crypto library. */
export interface CryptoBackend {
	readonly name: CryptoBackendName;
	importPrivateKey(source: KeySource, passphrase: string | undefined): ParsedKey;
	importPublicKey(source: KeySource): ParsedKey;
	/** Unencrypted PKCS#8 DER, to move a parsed key to another backend. */
	exportPrivateKey(handle: unknown): Uint8Array;
	/** SPKI DER, to move a parsed key to another backend. */
	exportPublicKey(handle: unknown): Uint8Array;
	/** RSASSA-PKCS1-v1_5 with MD5 over `data`. */
	sign(handle: unknown, data: Uint8Array): Uint8Array;
	verify(handle: unknown, data: Uint8Array, signature: Uint8Array): boolean;
	generateKeyPair(bits: number): Promise<{ privateKey: string; publicKey: string }>;
}

/** The backends ready for use: node's, made on first use; node-forge's, which load-backend.ts loads. */
export const loadedBackends = new Map<CryptoBackendName, CryptoBackend>();
let preferred: CryptoBackendName | undefined;
let nodeCryptoAvailable: boolean | undefined;

/**
 * True where `node:crypto` can be reached synchronously (Node 22.3+, Bun, Deno), and on any
 * Node.js: an older one gets an error naming the Node it needs, never a silent, slower forge. Checked once.
 */
export function hasNodeCrypto(): boolean {
	const getBuiltin = (globalThis as { process?: { getBuiltinModule?: unknown } }).process?.getBuiltinModule;
	nodeCryptoAvailable ??= typeof getBuiltin === "function" || nodeVersion() !== undefined;
	return nodeCryptoAvailable;
}

/** The backend of calls that name none: the one `useCryptoBackend` chose, else the runtime's own. */
export function defaultBackendName(): CryptoBackendName {
	return preferred ?? (hasNodeCrypto() ? "node" : "forge");
}

/** Makes `name` the backend of calls that name none. */
export function setDefaultBackend(name: CryptoBackendName): void {
	preferred = name;
}

/**
 * The backend to use now, synchronously. The node backend needs no loading;
 * node-forge must have been loaded first (`loadCryptoBackend`, in load-backend.ts).
 */
export function resolveBackend(name: CryptoBackendName = defaultBackendName()): CryptoBackend {
	const ready = loadedBackends.get(name);
	if (ready) return ready;
	if (name === "node") {
		const backend = createNodeBackend();
		loadedBackends.set(name, backend);
		return backend;
	}
	throw new CryptoBackendError(
		hasNodeCrypto()
			? "The forge backend is not loaded yet: " +
					"await useCryptoBackend('forge') or loadCryptoBackend('forge') once before signing with it."
			: "This runtime has no node:crypto: " +
					"await useCryptoBackend('forge') once at start-up before signing or verifying.",
	);
}
