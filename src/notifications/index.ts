// IPN verification and acknowledgement, callback decoding, and the IPN route handler.

export { createMemoryStore, type MemoryStoreOptions } from "./claims/memory-store.js";
export type {
	FailedEvent,
	FailedEventListOptions,
	FailedEventPage,
	FailedEventRetry,
	FailedEvents,
	NotificationContext,
} from "./claims/run-types.js";
export type {
	ClaimResult,
	ConfirmResult,
	EventFailure,
	FailedEventListing,
	FailedEventRecord,
	FailedEventRecordPage,
	FailedEventStore,
	NotificationStore,
} from "./claims/store.js";
export { createNotificationHandler } from "./handler/handler.js";
export type {
	NotificationErrorInfo,
	NotificationHandler,
	NotificationHandlerOptions,
} from "./handler/handler-types.js";
export type { DeliveryHandler, NotificationDelivery, NotificationResponse } from "./http/exchange.js";
export type { BodyTimeout } from "./http/http-rules.js";
export {
	type NodeListener,
	type NodeRequestLike,
	type NodeResponseLike,
	toNodeListener,
} from "./http/node-listener.js";
export { type Acknowledgement, acknowledge, acknowledgeFailure } from "./message/acknowledge.js";
export { type DecodeCallbackOptions, decodeCallback } from "./message/callback.js";
export {
	type NotificationEvent,
	type RefundNotification,
	type TransactionNotification,
	type VerifyNotificationOptions,
	verifyNotification,
} from "./message/verify.js";
export { createReconciler, DEFAULT_PENDING_STATUSES } from "./reconciler/reconcile.js";
export type {
	ReconcileErrorInfo,
	ReconcileInput,
	ReconcileOutcome,
	ReconcileProgress,
	ReconcileReport,
	ReconcileRunOptions,
	Reconciler,
	ReconcilerGateway,
	ReconcilerOptions,
} from "./reconciler/reconcile-types.js";
