/**
 * The SDK's errors, one tree whose branches say what happened:
 *
 * GatewayError
 * ├── GatewayRefusalError       the gateway responded with an error
 * │   ├── AuthenticationError, CheckoutError, GatewayValidationError,
 * │   └── NoS2SProviderError, ProcessingError, RateLimitError
 * ├── ConnectionError           no response: not sent, connection broken, or
 * │   └── TimeoutError          no response in time
 * ├── OutcomeUnknownError       a create may or may not have been processed
 * ├── InvalidInputError         an option, a parameter or a key is wrong
 * │   └── ConfigurationError, RequestValidationError, InvalidKeyError, CryptoBackendError
 * ├── VerificationError         a message failed verification or could not be read
 * │   ├── SignatureVerificationError, MalformedMessageError, InvalidNotificationError,
 * │   └── InvalidResponseError, ResponseTooLargeError, ReplayRefusedError
 * └── NotificationStoreError, LeaseExpiredError   the IPN handler's store and leases
 */
export { AuthenticationError } from "./authentication-error.js";
export { CheckoutError } from "./checkout-error.js";
export { ConfigurationError } from "./configuration-error.js";
export { ConnectionError } from "./connection-error.js";
export { CryptoBackendError } from "./crypto-backend-error.js";
export { GatewayError, type GatewayErrorContext, isGatewayError } from "./gateway-error.js";
export { GatewayRefusalError } from "./gateway-refusal-error.js";
export { type GatewayFieldError, GatewayValidationError } from "./gateway-validation-error.js";
export { InvalidInputError } from "./invalid-input-error.js";
export { InvalidKeyError, type InvalidKeyReason } from "./invalid-key-error.js";
export { InvalidNotificationError } from "./invalid-notification-error.js";
export { InvalidResponseError } from "./invalid-response-error.js";
export { LeaseExpiredError } from "./lease-expired-error.js";
export { MalformedMessageError } from "./malformed-message-error.js";
export { NoS2SProviderError } from "./no-s2s-provider-error.js";
export { NotificationStoreError } from "./notification-store-error.js";
export { OutcomeUnknownError } from "./outcome-unknown-error.js";
export { ProcessingError } from "./processing-error.js";
export { RateLimitError } from "./rate-limit-error.js";
export { type ReplayRefusalReason, ReplayRefusedError } from "./replay-refused-error.js";
export { type FieldIssue, RequestValidationError } from "./request-validation-error.js";
export { ResponseTooLargeError } from "./response-too-large-error.js";
export { type SignatureFailureReason, SignatureVerificationError } from "./signature-verification-error.js";
export { TimeoutError } from "./timeout-error.js";
export { VerificationError } from "./verification-error.js";
