// Loading a crypto backend, apart from backend.ts: verifying and signing reach backend.ts, and only code
// that loads a backend should hold the `import()` of node-forge. A bundler that splits code makes a chunk of
// every `import()` it finds, and the code a route shares with that chunk then loads as a file of its own.
import { InvalidKeyError } from "../errors/invalid-key-error.js";
import {
	type CryptoBackend,
	type CryptoBackendName,
	defaultBackendName,
	hasNodeCrypto,
	loadedBackends,
	resolveBackend,
	setDefaultBackend,
} from "./backend.js";

/**
 * Loads a backend (node-forge is imported only here, on first use) without
 * changing the default.
 */
export async function loadCryptoBackend(name: CryptoBackendName = defaultBackendName()): Promise<CryptoBackend> {
	if (name === "node" || loadedBackends.has(name)) return resolveBackend(name);
	const backend = (await import("./forge-backend.js")).createForgeBackend(InvalidKeyError);
	loadedBackends.set(name, backend);
	return backend;
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
