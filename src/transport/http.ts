import type { BeforeRetryState, RetryOptions } from "ky";
import type { EndpointKind } from "../endpoints.js";
import type { SignVersion } from "../signing/seal.js";
import { readCapped, wasCut } from "./capped-body.js";
import { failedBeforeSending } from "./network-failure.js";
import type { ClientRequestEvent, ClientResponseEvent, ClientRetryEvent } from "./observer.js";
import { queryRetry } from "./retry.js";

/** The fetch signature the client accepts (the global `fetch` fits). */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** Per-call options every endpoint method accepts. */
export interface RequestOptions {
	/** Cancels the call. On a create, an abort after sending leaves the outcome unknown (`OutcomeUnknownError`). */
	signal?: AbortSignal | undefined;
	/**
	 * How long each attempt of this call may take, in milliseconds, from sending the request to the last
	 * byte of the response (see the client's `timeoutMs`). @default the client's `timeoutMs`
	 */
	timeoutMs?: number | undefined;
}

/** @internal */
export interface TransportConfig {
	/** Absolute base URL without a trailing slash. */
	baseUrl: string;
	fetch: FetchLike | undefined;
	timeoutMs: number;
	maxRetries: number;
	retryBaseDelayMs: number;
	maxResponseBytes: number;
	userAgent: string;
}

/** @internal What is told of each attempt of a call: the client's hooks and logger, and any instrumentation. */
export interface AttemptWatch {
	/** An attempt is about to be sent, with the fields before sealing (not redacted: the watch redacts). */
	attempt(event: Omit<ClientRequestEvent, "fields">, fields: Record<string, unknown>): void;
	/** An attempt's response arrived (its body not read yet). */
	responded(event: ClientResponseEvent): void;
	/** A query is about to be retried, once its wait is over. */
	retried(event: ClientRetryEvent): void;
}

/** @internal One request to send. */
export interface OutgoingRequest extends RequestOptions {
	path: string;
	/** The sealed message, as JSON text. */
	body: string;
	kind: EndpointKind;
	/** The fields before sealing, for the watch's request event. */
	fields: Record<string, unknown>;
	signVersion: SignVersion;
	/** Told of each attempt, response and retry of this request. */
	watch: AttemptWatch;
}

/** @internal The gateway's response, its body read up to `maxResponseBytes`. */
export interface GatewayResponse {
	status: number;
	headers: Headers;
	/** The body as UTF-8 text; undefined when it was larger than `maxResponseBytes` (reading stopped there). */
	text: string | undefined;
	/** How many attempts were sent (1 without retries). */
	attempts: number;
}

/**
 * @internal Why no response came back:
 * - `not_sent`: the request certainly did not reach the gateway (refused connection, DNS, TLS);
 * - `may_have_been_sent`: the connection failed once the request may have been on its way;
 * - `timed_out`: no complete response (status, headers and body) within the timeout;
 * - `aborted`: the caller's signal aborted the call once it had started.
 */
export interface NoResponse {
	failure: "not_sent" | "may_have_been_sent" | "timed_out" | "aborted";
	/** The underlying error (the signal's reason for `aborted`). Not redacted. */
	cause: unknown;
	/** How many attempts were started (0 when none was). */
	attempts: number;
}

type KyModule = typeof import("ky");
let kyLoading: Promise<KyModule> | undefined;
/** ky is loaded on the first request only: importing the SDK never loads it. */
const loadKy = (): Promise<KyModule> => {
	kyLoading ??= import("ky");
	return kyLoading;
};

const encoder = new TextEncoder();

/**
 * What an attempt sends: a query's body as text; a create's as a one-shot stream with its length. Fetch sends
 * a body again by itself when the gateway (or a proxy) responds 421 Misdirected Request and the body can be
 * replayed (the Fetch standard's rule, which undici follows): a stream cannot be, so a create is sent once.
 */
function attemptBody(request: OutgoingRequest, kyHeaders: Headers): RequestInit & { duplex?: "half" } {
	if (request.kind === "query") return { headers: kyHeaders, body: request.body };
	const bytes = encoder.encode(request.body);
	const body = new ReadableStream<Uint8Array>({
		start(controller) {
			controller.enqueue(bytes);
			controller.close();
		},
	});
	const headers = new Headers(kyHeaders);
	headers.set("content-length", String(bytes.byteLength));
	return { headers, body, duplex: "half" };
}

/** ky keeps an error response's body as its text (the pipeline reads and redacts it). */
const keepText = (text: string): string => text;

/** The statuses fetch would follow when the response names a Location. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A redirect fails the attempt as a network error, as `redirect: "error"` would: the gateway never
 * redirects an API call, and a signed request must not be sent elsewhere. Asked as `"manual"`, because
 * Cloudflare Workers refuse `"error"`. The body is left unread: the connection is not reused.
 */
function refuseRedirect(response: Response): Response {
	const redirected = REDIRECT_STATUSES.has(response.status) && response.headers.has("location");
	if (response.type !== "opaqueredirect" && !redirected) return response;
	response.body?.cancel().catch(() => undefined);
	throw new TypeError(
		`the gateway responded with a redirect (HTTP ${response.status}), which the client does not follow`,
	);
}

/**
 * POSTs sealed messages to the gateway with ky: its timeout per attempt (each attempt reads the whole
 * body, so the timeout covers it), its retry for queries, its HTTP errors. Reports a response, or why
 * there was none; what either means for the call is the request pipeline's decision.
 */
export class Transport {
	readonly config: TransportConfig;
	readonly #retry: number | RetryOptions;

	constructor(config: TransportConfig) {
		this.config = config;
		this.#retry = config.maxRetries === 0 ? 0 : queryRetry(config.maxRetries, config.retryBaseDelayMs);
	}

	async send(request: OutgoingRequest): Promise<GatewayResponse | NoResponse> {
		const { default: ky, HTTPError, NetworkError, TimeoutError } = await loadKy();
		const { maxResponseBytes, userAgent } = this.config;
		const { watch } = request;
		const url = this.config.baseUrl + request.path;
		const fetch = this.config.fetch ?? globalThis.fetch;
		let attempt = 0;
		let lastEndedAt = 0;
		// Each attempt goes out through the caller's fetch (or the global one) as `fetch(url, init)`: the
		// headers and the signal (timeout and the caller's abort) of the Request ky made for it, and the body.
		// It ends once the response body is read: ky retries a timeout only while an attempt runs.
		const sendAttempt = async (input: Request | URL | string): Promise<Response> => {
			attempt++;
			const { path, fields, signVersion } = request;
			watch.attempt({ method: "POST", path, url, attempt, signVersion }, fields);
			const { headers, signal } = input as Request;
			const startedAt = performance.now();
			try {
				const response = refuseRedirect(
					await fetch(url, { method: "POST", redirect: "manual", signal, ...attemptBody(request, headers) }),
				);
				const durationMs = Math.round(performance.now() - startedAt);
				watch.responded({ method: "POST", path, attempt, status: response.status, durationMs });
				return await readCapped(response, maxResponseBytes);
			} finally {
				lastEndedAt = performance.now();
			}
		};
		const onRetry = ({ error, retryCount }: BeforeRetryState) => {
			const reason =
				error instanceof HTTPError
					? `status ${error.response.status}`
					: error instanceof TimeoutError
						? "timeout"
						: "network error";
			const delayMs = Math.round(performance.now() - lastEndedAt);
			const event: ClientRetryEvent = { method: "POST", path: request.path, attempt: retryCount + 1, delayMs, reason };
			watch.retried(event);
		};
		const create = request.kind === "create";
		const pending = ky(url, {
			method: "post",
			headers: { "content-type": "application/json", accept: "application/json", "user-agent": userAgent },
			body: request.body,
			redirect: "manual",
			signal: request.signal ?? null,
			timeout: request.timeoutMs ?? this.config.timeoutMs,
			retry: create ? 0 : this.#retry,
			throwHttpErrors: true,
			parseJson: keepText,
			hooks: { beforeRetry: [onRetry] },
			fetch: sendAttempt,
		});
		try {
			const response = await pending;
			const text = wasCut(response) ? undefined : await response.text();
			return { status: response.status, headers: response.headers, text, attempts: attempt };
		} catch (error) {
			const attempts = attempt;
			if (error instanceof HTTPError) {
				const failed = error.response as Response;
				const cut = wasCut(failed);
				const text = cut ? undefined : typeof error.data === "string" ? error.data : "";
				return { status: failed.status, headers: failed.headers, text, attempts };
			}
			if (attempt === 0) return { failure: "not_sent", cause: request.signal?.reason ?? error, attempts };
			if (request.signal?.aborted) return { failure: "aborted", cause: request.signal.reason, attempts };
			if (error instanceof TimeoutError) return { failure: "timed_out", cause: error, attempts };
			const cause = error instanceof NetworkError ? error.cause : error;
			return { failure: failedBeforeSending(cause) ? "not_sent" : "may_have_been_sent", cause, attempts };
		}
	}
}
