export * from "./errors/index.js";
export type { CallbackResult, Refund, RefundStatus, Transaction, TransactionDocument, TransactionStatus } from "./schemas/resources.js";
export * from "./signing/index.js";
