// The public surface of `merchant-gateway`. Each area keeps its own barrel.
export * from "./errors/index.js";
export * from "./notifications/index.js";
export * from "./resources/index.js";
export type { CallbackResult, Refund, RefundStatus, Transaction, TransactionDocument, TransactionStatus } from "./schemas/resources.js";
export * from "./signing/index.js";
