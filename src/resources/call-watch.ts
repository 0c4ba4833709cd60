import type { EndpointRow } from "../endpoints.js";
import { ConnectionError } from "../errors/connection-error.js";
import { GatewayRefusalError } from "../errors/gateway-refusal-error.js";
import { InvalidInputError } from "../errors/invalid-input-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { VerificationError } from "../errors/verification-error.js";
import { redact } from "../internal/redact.js";
import { errorName, Seam, tellBoth } from "../internal/seam.js";
import { type DriftReport, driftWarning } from "../schemas/drift-reports.js";
import type { CardChargeOutcome, RefundApproval } from "../schemas/responses.js";
import type { SignVersion } from "../signing/seal.js";
import type { AttemptWatch } from "../transport/http.js";
import type { ClientErrorEvent, ClientHooks, ClientRequestEvent, Logger, LogLevel } from "../transport/observer.js";

// The client call's lifecycle, as the request pipeline (pipeline.ts) tells it: the one seam its hooks, its
// logger and an instrumentation (merchant-gateway/opentelemetry) all watch.

/**
 * What a client call came to, as `merchant_gateway.outcome` says:
 * - `created`, `redirect`, `pending`: a create succeeded (a card charge that needs 3-D Secure is a
 *   `redirect`; a charge the gateway has not decided yet, or a refund held for approval, is `pending`);
 * - `retrieved`: a query answered;
 * - `refused`: the gateway responded with an error (GatewayRefusalError);
 * - `unknown`: a create may or may not have been processed (OutcomeUnknownError);
 * - `invalid_request`: the parameters or options were refused before anything was sent;
 * - `no_response`: no response came back (ConnectionError, TimeoutError);
 * - `invalid_response`: a response came back that could not be verified or read;
 * - `aborted`: the caller's signal ended the call;
 * - `failed`: anything else.
 */
export type ClientOutcome =
	| "created"
	| "redirect"
	| "pending"
	| "retrieved"
	| "refused"
	| "unknown"
	| "invalid_request"
	| "no_response"
	| "invalid_response"
	| "aborted"
	| "failed";

/** The client a call is made by: where it goes and how it signs. */
export interface CallingClient {
	/** The gateway's base URL, without a trailing slash. */
	readonly baseUrl: string;
	/** The gateway's host (an IPv6 address without its brackets). */
	readonly address: string;
	readonly port: number;
	readonly signVersion: SignVersion;
}

/** A call as it starts. */
export interface CallStart {
	readonly endpoint: EndpointRow;
	readonly client: CallingClient;
}

/** One call's lifecycle, told by the pipeline (and by the transport for each attempt), in this order. */
export interface CallWatch extends AttemptWatch {
	/** Runs the exchange with the gateway (so that an instrumentation can make its span active around it). */
	during<T>(send: () => Promise<T>): Promise<T>;
	/** The request about to be sealed and sent: its fields (not redacted: the watch keeps what it may). */
	sending(fields: Record<string, unknown>): void;
	/** How the exchange ended: the last response's status (none when none came back), after how many attempts. */
	exchanged(status: number | undefined, attempts: number): void;
	/** A drift first seen (in this process) in this call's response. */
	drift(report: DriftReport): void;
	/** The call returns `result`. */
	succeeded(result: unknown, outcome: ClientOutcome): void;
	/** The call throws `error`. */
	failed(error: unknown, outcome: ClientOutcome): void;
}

const nothing = () => undefined;

/** The watch of a call nobody watches. */
export const UNWATCHED_CALL: CallWatch = {
	during: (send) => send(),
	sending: nothing,
	attempt: nothing,
	responded: nothing,
	retried: nothing,
	exchanged: nothing,
	drift: nothing,
	succeeded: nothing,
	failed: nothing,
};

/** The client call's seam: what an instrumentation subscribes to. */
export const clientCalls = new Seam<CallStart, CallWatch>("client.call");

const RANK: Record<LogLevel | "silent", number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * The client's hooks and logger; never lets them break a request. Its calls reach them through one watch of
 * their lifecycle ({@link observedCall}), beside any instrumentation's.
 */
export class Observer {
	readonly #hooks: ClientHooks;
	readonly #logger: Logger | undefined;
	readonly #minimum: number;
	/** True when a hook is set or the logger logs anything: the client's calls are then watched. */
	readonly listens: boolean;
	/** True when anything listens to requests; lets the hot path skip redaction. */
	readonly watchesRequests: boolean;
	/** True when anything listens to responses. */
	readonly watchesResponses: boolean;

	constructor(hooks: ClientHooks | undefined, logger: Logger | undefined, level: LogLevel | "silent") {
		this.#hooks = hooks ?? {};
		this.#logger = logger;
		this.#minimum = RANK[level];
		const { onRequest, onResponse, onRetry, onError } = this.#hooks;
		const logsDebug = logger !== undefined && this.#minimum <= RANK.debug;
		this.watchesRequests = onRequest !== undefined || logsDebug;
		this.watchesResponses = onResponse !== undefined || logsDebug;
		const hooked = [onRequest, onResponse, onRetry, onError].some((hook) => hook !== undefined);
		this.listens = hooked || (logger !== undefined && this.#minimum <= RANK.error);
	}

	log(level: LogLevel, message: string, data?: Record<string, unknown>): void {
		if (!this.#logger || RANK[level] < this.#minimum) return;
		try {
			this.#logger[level]?.(message, data === undefined ? undefined : redact(data));
		} catch {
			// A broken logger must not break payments.
		}
	}

	error(event: ClientErrorEvent): void {
		this.hook("onError", event);
		this.log("error", `POST ${event.path} failed: ${event.error.name}: ${event.error.message}`);
	}

	/** Calls the hook `name` when it is set; one that throws is logged and ignored. */
	hook<K extends keyof ClientHooks>(name: K, event: Parameters<NonNullable<ClientHooks[K]>>[0]): void {
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

/** The client's hooks and logger as a watch of its calls: each event to its hook and its log line. */
function observedCall(observer: Observer, path: string): CallWatch {
	return {
		...UNWATCHED_CALL,
		attempt: (event, fields) => {
			if (!observer.watchesRequests) return;
			const full: ClientRequestEvent = { ...event, fields: redact(fields) };
			observer.hook("onRequest", full);
			const data = { fields: full.fields, signVersion: event.signVersion };
			observer.log("debug", `POST ${event.path} (attempt ${event.attempt})`, data);
		},
		responded: (event) => {
			if (!observer.watchesResponses) return;
			observer.hook("onResponse", event);
			observer.log("debug", `POST ${event.path} -> ${event.status} in ${event.durationMs} ms`);
		},
		retried: (event) => {
			observer.hook("onRetry", event);
			observer.log("warn", `POST ${event.path}: ${event.reason}; retry ${event.attempt - 1} after ${event.delayMs} ms`);
		},
		drift: (report) => observer.log("warn", driftWarning(report)),
		failed: (error) => {
			if (error instanceof Error) observer.error({ method: "POST", path, error });
		},
	};
}

/** Two watches of one call, told the same in the same order (the client's own first). */
function bothWatch(first: CallWatch, second: CallWatch): CallWatch {
	const both = <K extends keyof CallWatch>(method: K) => tellBoth(first, second, method);
	return {
		during: (send) => first.during(() => second.during(send)),
		sending: both("sending"),
		attempt: both("attempt"),
		responded: both("responded"),
		retried: both("retried"),
		exchanged: both("exchanged"),
		drift: both("drift"),
		succeeded: both("succeeded"),
		failed: both("failed"),
	};
}

/** The watch of one call of `client` to `endpoint`: its hooks and logger (when they listen), and the seam's. */
export function watchCall(client: CallingClient, observer: Observer, endpoint: EndpointRow): CallWatch {
	const own = observer.listens ? observedCall(observer, endpoint.path) : undefined;
	const failed = (error: unknown) =>
		observer.log("warn", `An instrumentation failed to start; the call goes on without it: ${errorName(error)}`);
	const subscribed = clientCalls.start({ endpoint, client }, failed);
	if (subscribed === undefined) return own ?? UNWATCHED_CALL;
	return own === undefined ? subscribed : bothWatch(own, subscribed);
}

/** Where the client's calls go, read once from its base URL. */
export function callingClient(baseUrl: string, signVersion: SignVersion): CallingClient {
	const url = new URL(baseUrl);
	const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
	return { baseUrl, address: url.hostname.replace(/^\[|\]$/g, ""), port, signVersion };
}

/** A failed call's outcome, by the error's branch of the SDK's error tree. */
export function failureOutcome(error: unknown, aborted: boolean): ClientOutcome {
	if (error instanceof OutcomeUnknownError) return "unknown";
	if (aborted) return "aborted";
	if (error instanceof GatewayRefusalError) return "refused";
	if (error instanceof InvalidInputError) return "invalid_request";
	if (error instanceof ConnectionError) return "no_response";
	if (error instanceof VerificationError) return "invalid_response";
	return "failed";
}

/** A successful call's outcome, read from the public result (a card charge's `outcome`, a refund's `approval`). */
export function successOutcome(endpoint: EndpointRow, result: unknown): ClientOutcome {
	if (endpoint.kind === "query") return "retrieved";
	const { outcome, approval } = (result ?? {}) as { outcome?: CardChargeOutcome; approval?: RefundApproval };
	if (outcome === "redirect") return "redirect";
	if (outcome === "pending" || approval === "pending_approval") return "pending";
	return "created";
}
