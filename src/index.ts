export { CryptoBackendError } from "./errors/crypto-backend-error.js";
export { GatewayError, type GatewayErrorContext } from "./errors/gateway-error.js";
export { InvalidKeyError, type InvalidKeyReason } from "./errors/invalid-key-error.js";
export { MalformedMessageError } from "./errors/malformed-message-error.js";
export { type SignatureFailureReason, SignatureVerificationError } from "./errors/signature-verification-error.js";
export * from "./signing/index.js";
