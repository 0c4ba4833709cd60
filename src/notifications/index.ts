// IPN verification and acknowledgement, callback decoding, and the IPN route handler.
export { type Acknowledgement, acknowledge, acknowledgeFailure } from "./acknowledge.js";
export { type DecodeCallbackOptions, decodeCallback } from "./callback.js";
export { createNotificationHandler } from "./handler.js";
export type {
	FailedEvent,
	FailedEventListOptions,
	FailedEventPage,
	FailedEventRetry,
	FailedEvents,
	NotificationContext,
	NotificationDelivery,
	NotificationErrorInfo,
	NotificationHandler,
	NotificationHandlerOptions,
	NotificationResponse,
} from "./handler-types.js";
export type { BodyTimeout } from "./http-rules.js";
export { createMemoryStore, type MemoryStoreOptions } from "./memory-store.js";
export { type NodeListener, type NodeRequestLike, type NodeResponseLike, toNodeListener } from "./node-listener.js";
export { createReconciler, DEFAULT_PENDING_STATUSES } from "./reconcile.js";
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
} from "./reconcile-types.js";
export type {
	ClaimResult,
	ConfirmResult,
	EventFailure,
	FailedEventListing,
	FailedEventRecord,
	FailedEventRecordPage,
	FailedEventStore,
	NotificationStore,
} from "./store.js";
export {
	type NotificationEvent,
	type RefundNotification,
	type TransactionNotification,
	type VerifyNotificationOptions,
	verifyNotification,
} from "./verify.js";
