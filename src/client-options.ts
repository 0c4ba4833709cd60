import * as z from "zod/mini";
import { duration, flag, integer, optionalFunction, requiredOr } from "./internal/options.js";
import { isLoopbackHost, string } from "./schemas/fields.js";
import { lazySchema } from "./schemas/lazy.js";
import type { SignedStringForm } from "./signing/canonical.js";
import { PrivateKey, type PrivateKeyLike, PublicKey, type PublicKeyLike } from "./signing/keys.js";
import type { FetchLike } from "./transport/http.js";
import type { ClientHooks, Logger } from "./transport/observer.js";

const isKeyInput = (value: unknown) => typeof value === "string" || value instanceof Uint8Array;
const privateKeyLike = () =>
	z.custom<PrivateKeyLike>(
		(value) => isKeyInput(value) || PrivateKey.isPrivateKey(value),
		requiredOr("must be PEM text, base64 DER, DER bytes or a loaded PrivateKey"),
	);
const publicKeyLike = () =>
	z.custom<PublicKeyLike>(
		(value) => isKeyInput(value) || PublicKey.isPublicKey(value),
		"must be PEM text, base64 DER, DER bytes or a PublicKey",
	);
const hook = <K extends keyof ClientHooks>() => optionalFunction<NonNullable<ClientHooks[K]>>();

/** Every option of `new GatewayClient(options)`, with its rule and its documentation: the one place for both. */
function clientOptionsShape() {
	return {
		/**
		 * The gateway's base URL, such as `https://gateway.example`. The client appends `/v2/...` itself, so a
		 * URL that already ends in `/v2` or `/v2/`, as the gateway's documents write endpoints, is taken without
		 * it. https only (http only for loopback hosts with `allowLoopbackHttp`); no query, fragment or
		 * credentials.
		 */
		baseUrl: string(),
		/**
		 * Your merchant ID (1-50 characters). Sent in checkout and S2S requests; in queries and refunds
		 * only with `alwaysSendMerchantId`.
		 */
		merchantId: string().check(
			z.refine((value) => value.length >= 1 && value.length <= 50, "must be 1 to 50 characters"),
		),
		/**
		 * Also send `merchantId` in the transaction query, the refund and the refund query. Their spec
		 * tables have none, and the gateway finds the merchant through the transaction; turn this on only
		 * for a gateway that asks for it there. The field is then signed like every other.
		 * @default false
		 */
		alwaysSendMerchantId: flag(false),
		/**
		 * The merchant private key that signs requests (RSA, 2048 to 4096 bits): PEM, base64 DER, DER
		 * bytes or a loaded `PrivateKey`. Parsed once, never shown.
		 */
		privateKey: privateKeyLike(),
		/**
		 * The gateway's public key, or several during a key rotation (any one may verify responses, IPNs and
		 * callbacks).
		 */
		gatewayPublicKey: z.union(
			[publicKeyLike(), z.array(publicKeyLike()).check(z.minLength(1, "must list at least one key"))],
			requiredOr("must be PEM text, base64 DER, DER bytes or a PublicKey, or a non-empty list of them"),
		),
		/**
		 * The account's signing version. Responses, IPNs and callbacks are accepted in this version only.
		 * @default "2.0" (what omitting signVersion means in the spec)
		 */
		signVersion: z._default(z.enum(["2.0", "2.1"], { error: 'must be "2.0" or "2.1"' }), "2.0"),
		/**
		 * How long each attempt may take, in milliseconds, from sending the request to the last byte of the
		 * response: a gateway that answers slowly, even a byte at a time, runs out of time like one that
		 * never answers. A query that runs out of time is retried (see `maxRetries`); a create is not, and
		 * fails with `OutcomeUnknownError` caused by a `TimeoutError`. So a create takes at most `timeoutMs`,
		 * and a query at most `timeoutMs × (maxRetries + 1)` plus the waits between its attempts (see
		 * `retryBaseDelayMs`): with the defaults, 90 s of attempts and at most 0.75 s of waiting (up to
		 * 60 s a wait when the gateway sends `Retry-After`).
		 * @default 30000
		 */
		timeoutMs: duration(30_000),
		/**
		 * Retries of the two QUERY endpoints after a network error, a timed-out attempt (no complete response
		 * within `timeoutMs`), or HTTP 408, 429, 500, 502, 503 or 504; each retry is a new attempt with its own
		 * `timeoutMs`. Creates are never retried, not even after a timeout: the outcome is then unknown.
		 * @default 2
		 */
		maxRetries: integer(0, 10, 2),
		/**
		 * Backoff before the first retry, in milliseconds; doubled for each further retry and capped at
		 * 8 s, with full jitter (the wait is a random time between 0 and that backoff). A `Retry-After` of
		 * at most 60 s replaces the backoff; a longer one ends the retries. So no wait exceeds 60 s, and
		 * without `Retry-After` none exceeds 8 s.
		 * @default 250
		 */
		retryBaseDelayMs: integer(0, 60_000, 250),
		/**
		 * Longest response the client reads, in bytes after decompression. Past it the client stops
		 * reading and throws `ResponseTooLargeError` (on a create, `OutcomeUnknownError` with that cause:
		 * the request may have been processed). Gateway responses are a few kilobytes; the limit guards
		 * memory against an endless response or a decompression bomb.
		 * @default 1048576 (1 MiB)
		 */
		maxResponseBytes: integer(1, 2_147_483_647, 1_048_576),
		/**
		 * A fetch implementation to use instead of the global one, called as `fetch(url, init)` for each
		 * attempt. A query's `init.body` is its JSON text; a create's is a one-shot `ReadableStream` (with
		 * `duplex: "half"` and a Content-Length header), so that no fetch can send it a second time by
		 * itself (Node's fetch would on a 421 Misdirected Request).
		 * @default globalThis.fetch (looked up at each request)
		 */
		fetch: optionalFunction<FetchLike>(),
		/** Observability callbacks; every payload is redacted. @default none */
		hooks: z.optional(
			z.strictObject(
				{
					onRequest: hook<"onRequest">(),
					onResponse: hook<"onResponse">(),
					onRetry: hook<"onRetry">(),
					onError: hook<"onError">(),
				},
				{ error: "must be an object of hook functions" },
			),
		),
		/** A console-like logger (`debug`, `info`, `warn`, `error`); every line is redacted. @default none */
		logger: z.optional(
			z.custom<Logger>(
				(value) => typeof value === "object" && value !== null,
				"must be an object with debug/info/warn/error methods",
			),
		),
		/** Lowest level logged: traffic is `debug`, retries `warn`, failures `error`. @default "info" */
		logLevel: z._default(
			z.enum(["debug", "info", "warn", "error", "silent"], { error: "must be debug, info, warn, error or silent" }),
			"info",
		),
		/**
		 * Accept `http:` for loopback hosts in `baseUrl` and in the callback, notification, cancel and error
		 * URLs (local development only).
		 * @default false
		 */
		allowLoopbackHttp: flag(false),
		/**
		 * Require a signature on creation responses (checkout, card charge, refund). Query responses are
		 * always verified.
		 * @default true
		 */
		requireSignedResponses: flag(true),
		/**
		 * How a 2.0 message becomes the string its signature covers. Leave it unset: the SDK uses the
		 * gateway's reference form. Set it only for a gateway that signs differently (the signature
		 * doctor, `npx merchant-gateway doctor`, tells which form verifies and what to set here).
		 * @default the gateway's reference form (`canonicalString`)
		 */
		signedString: optionalFunction<SignedStringForm>(),
	};
}
type ClientOptionsShape = ReturnType<typeof clientOptionsShape>;
type ClientOptionsObject = z.ZodMiniObject<ClientOptionsShape, z.core.$strict>;

/** Options of `new GatewayClient(...)`, validated at construction. */
export type GatewayClientOptions = z.input<ClientOptionsObject>;

/**
 * The URL the endpoint paths (`/v2/...`) are appended to: `baseUrl` without trailing slashes and without a
 * trailing `/v2`, which the paths already carry.
 */
export function apiBaseUrl(baseUrl: string): string {
	return baseUrl.replace(/\/+$/, "").replace(/\/v2$/, "");
}

/** The base URL's rules: absolute, https (or loopback http when allowed), nothing but scheme, host and path. */
const checkBaseUrl = () =>
	z.superRefine((options: z.output<ClientOptionsObject>, ctx) => {
		let url: URL;
		try {
			url = new URL(options.baseUrl);
		} catch {
			ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "must be an absolute URL" });
			return;
		}
		const loopbackHttp = url.protocol === "http:" && options.allowLoopbackHttp && isLoopbackHost(url.hostname);
		if (url.protocol !== "https:" && !loopbackHttp) {
			const message = "must be an https URL (http only for loopback hosts with allowLoopbackHttp)";
			ctx.addIssue({ code: "custom", path: ["baseUrl"], message });
		}
		if (url.search || url.hash || url.username || url.password) {
			ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "must not carry a query, fragment or credentials" });
		}
	});

/** What `new GatewayClient(options)` validates with; built by the first client (lazy.ts). */
export const clientOptionsSchema = lazySchema(
	(): ClientOptionsObject => z.strictObject(clientOptionsShape()).check(checkBaseUrl()),
);
