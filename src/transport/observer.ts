/** What `onRequest` receives: the message as sent, redacted (card number masked, CVV removed). */
export interface ClientRequestEvent {
	/** Always `POST`: every gateway endpoint is. */
	method: "POST";
	/** Endpoint path, such as `/v2/checkout`. */
	path: string;
	/** The full URL. */
	url: string;
	/** 1 for the first try. */
	attempt: number;
	/** The version the request is signed in. */
	signVersion: "2.0" | "2.1";
	/** The request's fields before sealing, redacted. */
	fields: Record<string, unknown>;
}

/** What `onResponse` receives. */
export interface ClientResponseEvent {
	/** Always `POST`: every gateway endpoint is. */
	method: "POST";
	/** Endpoint path, such as `/v2/checkout`. */
	path: string;
	/** 1 for the first try. */
	attempt: number;
	/** HTTP status of the response. */
	status: number;
	/** From sending to the whole response read, in milliseconds. */
	durationMs: number;
}

/** What `onRetry` receives as a retry starts, once its wait is over. */
export interface ClientRetryEvent {
	/** Always `POST`: every gateway endpoint is. */
	method: "POST";
	/** Endpoint path, such as `/v2/checkout`. */
	path: string;
	/** The attempt that is about to start (2 for the first retry). */
	attempt: number;
	/** How long the client waited before this attempt: the backoff, or the response's Retry-After. */
	delayMs: number;
	/** `status 503`, `network error`, `timeout`... */
	reason: string;
}

/** What `onError` receives: the error the call is about to throw (already redacted). */
export interface ClientErrorEvent {
	/** Always `POST`: every gateway endpoint is. */
	method: "POST";
	/** Endpoint path, such as `/v2/checkout`. */
	path: string;
	/** The error the call throws. */
	error: Error;
}

/** Observability callbacks. Each receives redacted data; a hook that throws is ignored (and logged). */
export interface ClientHooks {
	/** Before each attempt is sent. @default none */
	onRequest?: ((event: ClientRequestEvent) => void) | undefined;
	/** After each response is read. @default none */
	onResponse?: ((event: ClientResponseEvent) => void) | undefined;
	/** Before the client waits to retry a query. @default none */
	onRetry?: ((event: ClientRetryEvent) => void) | undefined;
	/** When a call is about to throw. @default none */
	onError?: ((event: ClientErrorEvent) => void) | undefined;
}

/** How much the client logs: this level and above. */
export type LogLevel = "debug" | "info" | "warn" | "error";
/** Any console-like logger: `console`, pino, winston... Lines carry redacted data only. */
export interface Logger {
	/** Each attempt and each response. */
	debug?(message: string, data?: Record<string, unknown>): void;
	/** Informational lines. */
	info?(message: string, data?: Record<string, unknown>): void;
	/** Retries, and hooks that threw. */
	warn?(message: string, data?: Record<string, unknown>): void;
	/** Calls that fail. */
	error?(message: string, data?: Record<string, unknown>): void;
}
