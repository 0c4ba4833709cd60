// IPN verification and acknowledgement, callback decoding, and the IPN route handler.
export { type Acknowledgement, acknowledge, acknowledgeFailure } from "./acknowledge.js";
export { type DecodeCallbackOptions, decodeCallback } from "./callback.js";
export {
	createNotificationHandler,
	type NotificationContext,
	type NotificationDelivery,
	type NotificationErrorInfo,
	type NotificationHandler,
	type NotificationHandlerOptions,
	type NotificationReply,
} from "./handler.js";
export type { BodyTimeout } from "./http-rules.js";
export { type NodeListener, type NodeRequestLike, type NodeResponseLike, toNodeListener } from "./node-listener.js";
export {
	createReconciler,
	DEFAULT_PENDING_STATUSES,
	type ReconcileErrorInfo,
	type ReconcileInput,
	type ReconcileOutcome,
	type ReconcileProgress,
	type ReconcileReport,
	type ReconcileRunOptions,
	type Reconciler,
	type ReconcilerOptions,
} from "./reconcile.js";
export type { ClaimResult, ConfirmResult, MemoryStoreOptions, NotificationStore } from "./store.js";
export { createMemoryStore } from "./store.js";
export {
	type NotificationEvent,
	type RefundNotification,
	type TransactionNotification,
	type VerifyNotificationOptions,
	verifyNotification,
} from "./verify.js";
