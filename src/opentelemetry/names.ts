/**
 * The names the SDK's telemetry uses: attributes (OpenTelemetry's semantic conventions where one applies,
 * the SDK's own under `merchant_gateway.`), span events and metrics. docs/operations.md lists them for
 * operators.
 */
export const ATTRIBUTES = {
	httpMethod: "http.request.method",
	urlTemplate: "url.template",
	urlFull: "url.full",
	statusCode: "http.response.status_code",
	serverAddress: "server.address",
	serverPort: "server.port",
	errorType: "error.type",
	resendCount: "http.request.resend_count",
	operation: "merchant_gateway.operation",
	outcome: "merchant_gateway.outcome",
	signVersion: "merchant_gateway.sign_version",
	retries: "merchant_gateway.retries",
	orderRef: "merchant_gateway.order_ref",
	transactionId: "merchant_gateway.transaction_id",
	refundId: "merchant_gateway.refund_id",
	retryReason: "merchant_gateway.retry.reason",
	retryDelay: "merchant_gateway.retry.delay_ms",
	eventId: "merchant_gateway.event_id",
	eventKind: "merchant_gateway.event.kind",
	status: "merchant_gateway.status",
	refusal: "merchant_gateway.refusal",
	returnCode: "merchant_gateway.return_code",
	joined: "merchant_gateway.joined",
	attempts: "merchant_gateway.attempts",
	source: "merchant_gateway.source",
	claimResult: "merchant_gateway.claim.result",
	duration: "merchant_gateway.duration_ms",
	reconcileTotal: "merchant_gateway.reconcile.total",
	reconcileProcessed: "merchant_gateway.reconcile.processed",
	reconcileAlreadyProcessed: "merchant_gateway.reconcile.already_processed",
	reconcileInProgress: "merchant_gateway.reconcile.in_progress",
	reconcilePending: "merchant_gateway.reconcile.pending",
	reconcileFailed: "merchant_gateway.reconcile.failed",
	driftType: "merchant_gateway.drift.type",
	driftSource: "merchant_gateway.drift.source",
	driftValue: "merchant_gateway.drift.value",
} as const;

export const EVENTS = {
	retry: "merchant_gateway.retry",
	drift: "merchant_gateway.drift",
} as const;

export const METRICS = {
	clientCalls: "merchant_gateway.client.calls",
	clientCallDuration: "merchant_gateway.client.call.duration",
	driftReports: "merchant_gateway.drift.reports",
	ipnDeliveries: "merchant_gateway.ipn.deliveries",
	callbackDuration: "merchant_gateway.callback.duration",
	claimDuration: "merchant_gateway.store.claim.duration",
	reconciledEvents: "merchant_gateway.reconcile.events",
	replays: "merchant_gateway.ipn.replays",
} as const;

/**
 * Histogram buckets for call durations, in seconds: the boundaries OpenTelemetry's HTTP semantic
 * conventions advise for request durations.
 */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
