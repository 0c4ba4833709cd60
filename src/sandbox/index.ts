export type { SandboxClock } from "./clock.js";
export type { ConnectionDrop, SandboxRequest, SandboxResponse } from "./exchange.js";
export type {
	FaultDrop,
	FaultResponder,
	FaultResponse,
	FaultTools,
	SandboxFault,
	SandboxFaults,
} from "./faults.js";
export type { DeliveryAttempt } from "./notifier.js";
export type {
	SandboxEvent,
	SandboxFeeOptions,
	SandboxIpnOptions,
	SandboxMerchantOptions,
	SandboxOptions,
	SandboxProvider,
} from "./options.js";
export type { ReceivedLog, ReceivedRequest } from "./received.js";
export { createSandbox, type Sandbox, type SandboxTransaction } from "./sandbox.js";
export { type SandboxServer, type SandboxServerOptions, startSandboxServer } from "./server.js";
export type { ProviderAttempt } from "./state.js";
export {
	refundStatuses,
	type SandboxRefundStatus,
	type SandboxStatus,
	type SandboxTransactionStatus,
	transactionStatuses,
} from "./statuses.js";
export { type TestCard, type TestCardBehaviour, testCards, threeDsPasswords } from "./test-cards.js";
