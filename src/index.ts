// The public surface of `merchant-gateway`. Each area keeps its own barrel.

export { GatewayClient, type GatewayClientOptions } from "./client.js";
export * from "./errors/index.js";
export * from "./notifications/index.js";
export * from "./resources/index.js";
export type { BrowserDetails, BrowserDetailsInput } from "./schemas/browser-details.js";
export type { CardChargeParams, CheckoutParams, OrderParams, RefundParams, TransactionDocumentParam } from "./schemas/params.js";
export type { CallbackResult, Refund, Transaction, TransactionDocument } from "./schemas/resources.js";
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
export * from "./signing/index.js";
export {
	codeOfStatus,
	type KnownRefundStatus,
	type KnownStatus,
	type KnownTransactionStatus,
	type RefundStatus,
	STATUS_CODES,
	type StatusCode,
	statusFromCode,
	type TransactionStatus,
} from "./statuses/catalogue.js";
export type { FetchLike, RequestOptions } from "./transport/http.js";
export type { ClientErrorEvent, ClientHooks, ClientRequestEvent, ClientResponseEvent, ClientRetryEvent, Logger, LogLevel } from "./transport/observer.js";
