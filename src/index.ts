/**
 * The typed client for the Payment Gateway API v2, IPN verification, acknowledgement and the IPN
 * route handler, callback decoding, keys and the SDK's errors. Each area keeps its own barrel.
 * @module merchant-gateway
 */

export { GatewayClient } from "./client.js";
export type { GatewayClientOptions } from "./client-options.js";
export * from "./errors/index.js";
export * from "./notifications/index.js";
export * from "./resources/index.js";
export type { BrowserDetails, BrowserDetailsInput } from "./schemas/browser-details.js";
export type * from "./schemas/params.js";
export type {
	CallbackResult,
	CardDetails,
	PaymentMethodDetails,
	Refund,
	Transaction,
	TransactionDocument,
	TransactionFees,
} from "./schemas/resources.js";
export type {
	CardChargeOutcome,
	CardChargePending,
	CardChargeRedirect,
	CardChargeResult,
	CardChargeSuccess,
	CheckoutSession,
	RefundApproval,
	RefundCreated,
} from "./schemas/responses.js";
// What merchants configure: their keys, the signing version, the gateway's signed-string form. The rest
// of signing is in `merchant-gateway/signing`.
export type { SignedStringForm } from "./signing/canonical.js";
export { flatStringifiedForm, nodeSnippetForm, retiredFirstDraftForm } from "./signing/forms/index.js";
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
} from "./signing/keys.js";
export type { SignVersion } from "./signing/seal.js";
export * from "./statuses/catalogue.js";
export type { FetchLike, RequestOptions } from "./transport/http.js";
export type * from "./transport/observer.js";
