export { type CryptoBackendName, loadCryptoBackend, useCryptoBackend } from "./backend.js";
export { type CallbackInput, openCallbackUrl, sealCallbackUrl } from "./callback-url.js";
export { canonicalString, type SignedStringForm } from "./canonical.js";
export type { SignatureFormName } from "./doctor/candidates.js";
export {
	type DiagnoseSignatureOptions,
	diagnoseSignature,
	type SignatureAttempt,
	type SignatureDiagnosis,
} from "./doctor/diagnose.js";
export type { DiagnosableMessage } from "./doctor/read-message.js";
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
export { type OpenOptions, openMessage } from "./open.js";
export { type SealedFlat, type SealedPayload, type SealOptions, type SignVersion, sealMessage } from "./seal.js";
