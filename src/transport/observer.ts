import { redact } from "../internal/redact.js";

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

const RANK: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * Fans events out to hooks and the logger; never lets them break a request. The client's calls reach it as
 * one watch of their lifecycle (resources/call-watch.ts), beside any instrumentation's.
 */
export class Observer {
	readonly #hooks: ClientHooks;
	readonly #logger: Logger | undefined;
	readonly #minimum: number;

	constructor(hooks: ClientHooks | undefined, logger: Logger | undefined, level: LogLevel | "silent") {
		this.#hooks = hooks ?? {};
		this.#logger = logger;
		this.#minimum = RANK[level];
	}

	/** True when a hook is set or the logger logs anything: the client's calls are then watched. */
	get listens(): boolean {
		const { onRequest, onResponse, onRetry, onError } = this.#hooks;
		const hooked =
			onRequest !== undefined || onResponse !== undefined || onRetry !== undefined || onError !== undefined;
		return hooked || (this.#logger !== undefined && this.#minimum <= RANK.error);
	}

	/** True when anything listens to requests; lets the hot path skip redaction. */
	get watchesRequests(): boolean {
		return this.#hooks.onRequest !== undefined || (this.#logger !== undefined && this.#minimum <= RANK.debug);
	}

	/** True when anything listens to responses. */
	get watchesResponses(): boolean {
		return this.#hooks.onResponse !== undefined || (this.#logger !== undefined && this.#minimum <= RANK.debug);
	}

	log(level: LogLevel, message: string, data?: Record<string, unknown>): void {
		if (!this.#logger || RANK[level] < this.#minimum) return;
		try {
			this.#logger[level]?.(message, data === undefined ? undefined : redact(data));
		} catch {
			// A broken logger must not break payments.
		}
	}

	request(event: Omit<ClientRequestEvent, "fields">, fields: Record<string, unknown>): void {
		if (!this.watchesRequests) return;
		const full: ClientRequestEvent = { ...event, fields: redact(fields) };
		this.#call("onRequest", full);
		this.log("debug", `POST ${event.path} (attempt ${event.attempt})`, {
			fields: full.fields,
			signVersion: event.signVersion,
		});
	}

	response(event: ClientResponseEvent): void {
		if (!this.watchesResponses) return;
		this.#call("onResponse", event);
		this.log("debug", `POST ${event.path} -> ${event.status} in ${event.durationMs} ms`);
	}

	retry(event: ClientRetryEvent): void {
		this.#call("onRetry", event);
		this.log("warn", `POST ${event.path}: ${event.reason}; retry ${event.attempt - 1} after ${event.delayMs} ms`);
	}

	error(event: ClientErrorEvent): void {
		this.#call("onError", event);
		this.log("error", `POST ${event.path} failed: ${event.error.name}: ${event.error.message}`);
	}

	#call<K extends keyof ClientHooks>(name: K, event: Parameters<NonNullable<ClientHooks[K]>>[0]): void {
		const hook = this.#hooks[name] as ((event: unknown) => void) | undefined;
		if (!hook) return;
		try {
			hook(event);
		} catch (error) {
			this.log("warn", `The ${name} hook threw; ignored.`, {
				error: error instanceof Error ? error.message : String(error),
			});
		}
	}
}
