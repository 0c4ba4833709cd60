/**
 * The low-level signing API, for code that signs or checks messages itself (the client and the IPN
 * handler already do both), the signature doctor, and the choice of crypto backend. Sealing callback
 * URLs is the gateway's job: see `merchant-gateway/testing`.
 * @module merchant-gateway/signing
 */
import type { CryptoBackendName } from "./backend.js";
import { loadCryptoBackend as loadBackend } from "./load-backend.js";

export type { CryptoBackendName } from "./backend.js";
export { openCallbackUrl } from "./callback-url.js";
export { canonicalString, type SignedStringForm } from "./canonical.js";
export type { SignatureFormName } from "./doctor/candidates.js";
export {
	type DiagnoseSignatureOptions,
	diagnoseSignature,
	type SignatureAttempt,
	type SignatureDiagnosis,
} from "./doctor/diagnose.js";
export type { DiagnosableMessage, MessageShape } from "./doctor/read-message.js";
export { flatStringifiedForm, nodeSnippetForm, retiredFirstDraftForm } from "./forms/index.js";
export { type GeneratedKeyPair, type GenerateKeyPairOptions, generateKeyPair } from "./generate.js";
export {
	type KeyInput,
	type LoadPrivateKeyOptions,
	type LoadPublicKeyOptions,
	loadPrivateKey,
	loadPublicKey,
	PrivateKey,
	type PrivateKeyLike,
	PublicKey,
	type PublicKeyLike,
} from "./keys.js";
export { useCryptoBackend } from "./load-backend.js";
export { type OpenOptions, openMessage } from "./open.js";
export { type SealedFlat, type SealedPayload, type SealOptions, type SignVersion, sealMessage } from "./seal.js";

/**
 * Loads a crypto backend ahead of time (node-forge is imported only then) without making it the
 * default; `useCryptoBackend` also makes it the default.
 */
export async function loadCryptoBackend(name?: CryptoBackendName): Promise<void> {
	await loadBackend(name);
}
