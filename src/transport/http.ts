import { ConnectionError } from "../errors/connection-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { ResponseTooLargeError } from "../errors/response-too-large-error.js";
import { TimeoutError } from "../errors/timeout-error.js";
import { KnownSecrets, redactText } from "../internal/redact.js";
import type { SignVersion } from "../signing/seal.js";
import { safeCause } from "./errors.js";
import { errorCodes, failedBeforeSending } from "./network-failure.js";
import type { Observer } from "./observer.js";
import { isRetryableStatus, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs } from "./retry-policy.js";
import { isSignatureRefusal } from "./signature-refusal.js";

/** The fetch signature the client accepts (the global `fetch` fits). */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

export interface TransportConfig {
	/** Absolute base URL without a trailing slash. */
	baseUrl: string;
	fetch: FetchLike | undefined;
	timeoutMs: number;
	maxRetries: number;
	retryBaseDelayMs: number;
	/** Longest answer read, in bytes after decompression. */
	maxResponseBytes: number;
	userAgent: string;
	observer: Observer;
}

/** Per-call options every endpoint method accepts. */
export interface RequestOptions {
	/** Cancels the call. On a create, an abort after sending leaves the outcome unknown (`OutcomeUnknownError`). */
	signal?: AbortSignal | undefined;
	/** Timeout of each attempt, in milliseconds, for this call. @default the client's `timeoutMs` */
	timeoutMs?: number | undefined;
}

export interface OutgoingRequest extends RequestOptions {
	path: string;
	body: string;
	/** `create` requests are never retried once they may have been sent. */
	kind: "create" | "query";
	/** The fields before sealing, for hooks (redacted there). */
	fields: Record<string, unknown>;
	signVersion: SignVersion;
	/** For OutcomeUnknownError: what to reconcile. */
	ids: { orderRef?: string | undefined; transactionId?: string | undefined };
	/** "The checkout session", "The card charge"... */
	what: string;
}

/** The gateway's answer, body read in full (up to `maxResponseBytes`). */
export interface GatewayAnswer {
	status: number;
	headers: Headers;
	text: string;
	/** The request's card number and security code: whatever the answer shows is redacted of them. */
	secrets: KnownSecrets;
}

type Ky = typeof import("ky")["default"];
let kyLoading: Promise<Ky> | undefined;
/** ky is loaded on the first request only: importing the SDK never loads it. */
function loadKy(): Promise<Ky> {
	kyLoading ??= import("ky").then((module) => module.default);
	return kyLoading;
}

const TIMED_OUT = Symbol("timeout");
/** The one per-call option: an option name ky does not know, so ky hands it to our fetch wrapper untouched. */
const EXCHANGE_OPTION = "merchantGatewayExchange";

/**
 * What one attempt sends, carried through ky to the fetch wrapper as a single
 * option (each option costs ky a merge step, a copy and a lookup per request):
 * the URL as we built it, the body as the original string, and the attempt's
 * own signal (timeout + the caller's signal).
 */
class Exchange {
	readonly url: string;
	readonly body: string;
	readonly signal: AbortSignal;

	constructor(url: string, body: string, signal: AbortSignal) {
		this.url = url;
		this.body = body;
		this.signal = signal;
	}
}

type Failure = { type: "timeout" | "aborted" | "network"; error: unknown } | { type: "too_large"; status: number };

/** Marks a body that grew past the limit. */
const TOO_LARGE = Symbol("too large");

/**
 * The body as text, reading no more than `limit` bytes (as the body stream
 * yields them, that is after fetch undid any content encoding). Past the limit
 * the stream is cancelled, which closes the connection: an endless answer or a
 * decompression bomb costs at most `limit` bytes and one chunk.
 */
async function readText(response: Response, limit: number): Promise<string | typeof TOO_LARGE> {
	const body = response.body;
	if (body === null) return "";
	const reader = body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > limit) {
			reader.cancel().catch(() => {});
			return TOO_LARGE;
		}
		chunks.push(value);
	}
	// Decoded as Response.text() does: UTF-8, a leading BOM dropped, bad sequences replaced.
	return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : concat(chunks, size));
}

/** One array of `size` bytes from the chunks (no Buffer: the client also runs where there is none). */
function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
	const out = new Uint8Array(size);
	let offset = 0;
	for (const chunk of chunks) {
		out.set(chunk, offset);
		offset += chunk.byteLength;
	}
	return out;
}

/** The statuses fetch would follow when the answer names a Location. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * A redirect fails the attempt as a network error, as `redirect: "error"` would: the gateway never
 * redirects an API call, and a signed request must not be sent elsewhere. Asked as `"manual"`, because
 * Cloudflare Workers refuse `"error"`.
 */
async function refuseRedirect(response: Response): Promise<Response> {
	const redirected = REDIRECT_STATUSES.has(response.status) && response.headers.has("location");
	if (response.type !== "opaqueredirect" && !redirected) return response;
	await response.body?.cancel().catch(() => undefined);
	throw new TypeError(
		`the gateway answered with a redirect (HTTP ${response.status}), which the client does not follow`,
	);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(signal.reason);
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		const onAbort = () => {
			clearTimeout(timer);
			reject(signal?.reason);
		};
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

/** POSTs JSON to the gateway over ky, with per-attempt timeouts and the retry policy. */
export class Transport {
	readonly #config: TransportConfig;
	/** One ky instance per client, made on the first request; retries and timeouts are ours (per attempt, body included). */
	#ky: Ky | undefined;

	constructor(config: TransportConfig) {
		this.#config = config;
	}

	async #instance(): Promise<Ky> {
		if (this.#ky) return this.#ky;
		const ky = await loadKy();
		const send = this.#config.fetch ?? ((input, init) => globalThis.fetch(input, init));
		const headers = {
			"content-type": "application/json",
			accept: "application/json",
			"user-agent": this.#config.userAgent,
		};
		// As few options as ky needs, set once: every option ky knows is merged,
		// normalized and copied again on each request. No ky timeout (ours covers the
		// body read too), no ky retry (ours knows creates from queries; a limit above 0
		// would also clone every Request), no HTTP errors thrown (statuses are mapped
		// to typed errors by the resources). ky still builds its Request and runs its
		// pipeline; the wrapper then fetches with the original body string rather than
		// the Request's stream (which undici would pipe chunk by chunk), the fixed
		// headers, and the attempt's signal.
		this.#ky = ky.create({
			method: "post",
			timeout: false,
			retry: 0,
			throwHttpErrors: false,
			fetch: (_request, init) => {
				const exchange = (init as Record<string, unknown> | undefined)?.[EXCHANGE_OPTION];
				if (!(exchange instanceof Exchange))
					return Promise.reject(new TypeError("merchant-gateway: request sent without its exchange"));
				return send(exchange.url, {
					method: "POST",
					headers,
					body: exchange.body,
					signal: exchange.signal,
					redirect: "manual",
				}).then(refuseRedirect);
			},
		});
		return this.#ky;
	}

	async send(request: OutgoingRequest): Promise<GatewayAnswer> {
		const { observer, maxRetries } = this.#config;
		const secrets = new KnownSecrets(request.fields);
		const url = this.#config.baseUrl + request.path;
		const retries = request.kind === "query" ? maxRetries : 0;
		for (let attempt = 1; ; attempt++) {
			// Aborted before this attempt started: nothing of it was sent.
			if (request.signal?.aborted) throw request.signal.reason;
			if (observer.watchesRequests)
				observer.request(
					{ method: "POST", path: request.path, url, attempt, signVersion: request.signVersion },
					request.fields,
				);
			const started = observer.watchesResponses ? performance.now() : 0;
			const outcome = await this.#exchange(url, request, secrets);
			if ("type" in outcome) {
				const error = this.#failureError(outcome, request, secrets);
				// An answer past the limit would most likely be as large again.
				if (attempt <= retries && outcome.type !== "aborted" && outcome.type !== "too_large") {
					await this.#wait(request, attempt + 1, undefined, outcome.type === "timeout" ? "timeout" : "network error");
					continue;
				}
				throw error;
			}
			if (observer.watchesResponses) {
				observer.response({
					method: "POST",
					path: request.path,
					attempt,
					status: outcome.status,
					durationMs: Math.round(performance.now() - started),
				});
			}
			if (
				attempt <= retries &&
				isRetryableStatus(outcome.status) &&
				!isSignatureRefusal(outcome.status, outcome.text)
			) {
				const retryAfter = parseRetryAfter(outcome.headers.get("retry-after"));
				if (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS) {
					await this.#wait(request, attempt + 1, retryAfter, `status ${outcome.status}`);
					continue;
				}
			}
			return outcome;
		}
	}

	async #wait(
		request: OutgoingRequest,
		nextAttempt: number,
		retryAfterMs: number | undefined,
		reason: string,
	): Promise<void> {
		const delayMs = retryDelayMs(nextAttempt - 1, this.#config.retryBaseDelayMs, retryAfterMs);
		this.#config.observer.retry({ method: "POST", path: request.path, attempt: nextAttempt, delayMs, reason });
		await sleep(delayMs, request.signal);
	}

	async #exchange(url: string, request: OutgoingRequest, secrets: KnownSecrets): Promise<GatewayAnswer | Failure> {
		const ky = this.#ky ?? (await this.#instance());
		const controller = new AbortController();
		const timer = setTimeout(() => controller.abort(TIMED_OUT), request.timeoutMs ?? this.#config.timeoutMs);
		const userSignal = request.signal;
		const onUserAbort = userSignal ? () => controller.abort(userSignal.reason) : undefined;
		if (onUserAbort) userSignal?.addEventListener("abort", onUserAbort, { once: true });
		try {
			const options: Record<typeof EXCHANGE_OPTION, Exchange> = {
				merchantGatewayExchange: new Exchange(url, request.body, controller.signal),
			};
			const response = await ky(url, options as Parameters<Ky>[1]);
			const text = await readText(response, this.#config.maxResponseBytes);
			if (text === TOO_LARGE) {
				controller.abort(TOO_LARGE);
				return { type: "too_large", status: response.status };
			}
			return { status: response.status, headers: response.headers, text, secrets };
		} catch (error) {
			if (controller.signal.aborted)
				return { type: controller.signal.reason === TIMED_OUT ? "timeout" : "aborted", error };
			return { type: "network", error };
		} finally {
			clearTimeout(timer);
			if (onUserAbort) userSignal?.removeEventListener("abort", onUserAbort);
		}
	}

	/** The error a failed attempt ends in, honest about whether a create may have happened. */
	#failureError(failure: Failure, request: OutgoingRequest, secrets: KnownSecrets): unknown {
		const { path } = request;
		if (failure.type === "too_large") {
			const tooLarge = new ResponseTooLargeError(this.#config.maxResponseBytes, { status: failure.status, path });
			if (request.kind === "query") return tooLarge;
			const circumstance = "its answer was larger than maxResponseBytes, so it was not read";
			const where = { status: failure.status, path, cause: tooLarge };
			return new OutcomeUnknownError(request.what, request.ids, where, circumstance);
		}
		const timeoutMs = request.timeoutMs ?? this.#config.timeoutMs;
		if (failure.type === "aborted" && request.kind === "query") return request.signal?.reason ?? failure.error;
		const base =
			failure.type === "timeout"
				? new TimeoutError(`No answer from the gateway within ${timeoutMs} ms.`, { path })
				: failure.type === "aborted"
					? safeCause(request.signal?.reason ?? failure.error, secrets)
					: new ConnectionError(`Could not reach the gateway: ${redactText(describe(failure.error), secrets)}.`, {
							path,
							cause: safeCause(failure.error, secrets),
						});
		if (request.kind === "query") return base;
		if (failure.type === "network" && failedBeforeSending(failure.error)) return base;
		return new OutcomeUnknownError(request.what, request.ids, { path, cause: base });
	}
}

/** The deepest message and the first error code along the cause chain, e.g. `ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:9)`. */
function describe(error: unknown): string {
	let message = error instanceof Error ? error.message : "network error";
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current instanceof Error; depth++) {
		message = current.message || message;
		current = current.cause;
	}
	const [code] = errorCodes(error);
	return code ? `${code} (${message})` : message;
}
