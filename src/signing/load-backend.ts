// Loading a crypto backend, apart from backend.ts: verifying and signing reach backend.ts, and only code
// that loads a backend should hold the `import()` of node-forge. A bundler that splits code makes a chunk of
// every `import()` it finds, and the code a route shares with that chunk then loads as a file of its own.
import { InvalidKeyError } from "../errors/invalid-key-error.js";
import {
	type CryptoBackendName,
	defaultBackendName,
	hasNodeCrypto,
	loadedBackends,
	resolveBackend,
	setDefaultBackend,
} from "./backend.js";

/**
 * Loads a crypto backend ahead of time (node-forge is imported only then) without making it the
 * default; `useCryptoBackend` also makes it the default.
 */
export async function loadCryptoBackend(name: CryptoBackendName = defaultBackendName()): Promise<void> {
	if (name !== "node" && !loadedBackends.has(name))
		loadedBackends.set(name, (await import("./forge-backend.js")).createForgeBackend(InvalidKeyError));
	// The node backend needs no loading, but a runtime without node:crypto refuses it here, not at first use.
	resolveBackend(name);
}

/**
 * Loads a backend and makes it the default for every later call that does not
 * name one. `"auto"`, what the SDK does by itself, picks `node:crypto` where it
 * exists and node-forge elsewhere. On runtimes without `node:crypto`, await this
 * once at start-up before using the synchronous signing functions.
 */
export async function useCryptoBackend(name: CryptoBackendName | "auto" = "auto"): Promise<void> {
	const resolved = name === "auto" ? (hasNodeCrypto() ? "node" : "forge") : name;
	await loadCryptoBackend(resolved);
	setDefaultBackend(resolved);
}
