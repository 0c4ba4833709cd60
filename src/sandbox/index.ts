export type { SandboxClock } from "./books/clock.js";
export type {
	SandboxFeeOptions,
	SandboxMerchantOptions,
	SandboxProvider,
} from "./books/merchant-options.js";
export type { ProviderAttempt } from "./books/records.js";
export {
	refundStatuses,
	type SandboxRefundStatus,
	type SandboxStatus,
	type SandboxTransactionStatus,
	transactionStatuses,
} from "./books/statuses.js";
export { type TestCard, type TestCardBehaviour, testCards, threeDsPasswords } from "./books/test-cards.js";
export { type ConnectSandboxOptions, connectSandbox, type SandboxControl } from "./connect-sandbox.js";
export type { ClockMove, ControlTransaction, RefundDecisionResult } from "./control/control-types.js";
export type { SandboxEvent, SandboxOptions } from "./core/sandbox-options.js";
export type { SandboxTransaction } from "./core/views.js";
export { createSandbox, type Sandbox } from "./create-sandbox.js";
export { type SandboxServer, type SandboxServerOptions, startSandboxServer } from "./http-server.js";
export type {
	FaultDrop,
	FaultResponder,
	FaultResponse,
	FaultTools,
	SandboxFault,
	SandboxFaults,
} from "./wire/faults.js";
export type { DeliveryAttempt, SandboxIpnOptions } from "./wire/notifier.js";
export type { ReceivedLog, ReceivedRequest } from "./wire/received-log.js";
export type { ConnectionDrop, SandboxRequest, SandboxResponse } from "./wire/request-response.js";
