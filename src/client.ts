import * as z from "zod/mini";
import { ConfigurationError } from "./errors/configuration-error.js";
import { CardResource } from "./resources/card.js";
import { CheckoutResource } from "./resources/checkout.js";
import type { ClientContext } from "./resources/context.js";
import { CallbacksResource, NotificationsResource } from "./resources/notifications.js";
import { RefundsResource } from "./resources/refunds.js";
import { TransactionsResource } from "./resources/transactions.js";
import { isLoopbackHost } from "./schemas/fields.js";
import { type LazyInput, lazySchema } from "./schemas/lazy.js";
import { toFieldIssues } from "./schemas/requests.js";
import type { Assert, SameShape } from "./schemas/type-equality.js";
import type { SignedStringForm } from "./signing/canonical.js";
import {
	PrivateKey,
	type PrivateKeyLike,
	PublicKey,
	type PublicKeyLike,
	toPrivateKey,
	toPublicKeys,
} from "./signing/keys.js";
import { type FetchLike, Transport } from "./transport/http.js";
import { type ClientHooks, type Logger, Observer } from "./transport/observer.js";
import { userAgent } from "./transport/version.js";

const isKeyInput = (value: unknown) => typeof value === "string" || value instanceof Uint8Array;
/** "is required" for a missing option, `rule` for a present one of the wrong kind. */
const requiredOr = (rule: string) => ({
	error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : rule),
});
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
const hook = () =>
	z.optional(z.custom<(event: never) => void>((value) => typeof value === "function", "must be a function"));
const integer = (min: number, max: number, fallback: number) =>
	z._default(
		z
			.number()
			.check(
				z.refine(
					(value) => Number.isInteger(value) && value >= min && value <= max,
					`must be an integer from ${min} to ${max}`,
				),
			),
		fallback,
	);
const flag = (fallback: boolean) => z._default(z.boolean({ error: "must be a boolean" }), fallback);

/** Everything `new GatewayClient(options)` accepts. Validated at construction; built by the first one (lazy.ts). */
export const clientOptionsSchema = lazySchema(() =>
	z
		.strictObject({
			/** The gateway's base URL, such as `https://gateway.example` (paths `/v2/...` are appended). https only; http only for loopback hosts with `allowLoopbackHttp`. */
			baseUrl: z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }),
			/**
			 * Your merchant ID (1-50 characters); sent in checkout and S2S requests
			 * (queries and refunds too with `alwaysSendMerchantId`).
			 */
			merchantId: z
				.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
				.check(z.refine((value) => value.length >= 1 && value.length <= 50, "must be 1 to 50 characters")),
			/**
			 * Also send `merchantId` in transaction queries, refunds and refund queries,
			 * whose spec tables have none (D11). @default false
			 */
			alwaysSendMerchantId: flag(false),
			/** The merchant private key that signs requests (D1): PEM, base64 DER, DER bytes or a `PrivateKey`. */
			privateKey: privateKeyLike(),
			/** The gateway's public key(s) that verify answers; several during a key rotation (any one may verify). */
			gatewayPublicKey: z.union(
				[publicKeyLike(), z.array(publicKeyLike()).check(z.minLength(1, "must list at least one key"))],
				requiredOr("must be PEM text, base64 DER, DER bytes or a PublicKey, or a non-empty list of them"),
			),
			/** The account's signing version; omitting it means 2.0, as in the spec. @default "2.0" */
			signVersion: z._default(z.enum(["2.0", "2.1"], { error: 'must be "2.0" or "2.1"' }), "2.0"),
			/** Timeout of each attempt in milliseconds (connection, answer and body). @default 30000 */
			timeoutMs: integer(1, 2_147_483_647, 30_000),
			/** Retries of the two QUERY endpoints on network errors, timeouts, 408, 429 and 5xx. Creates are never retried. @default 2 */
			maxRetries: integer(0, 10, 2),
			/** First backoff delay in milliseconds; doubles per retry, with jitter, capped at 8 s. Retry-After wins. @default 250 */
			retryBaseDelayMs: integer(0, 60_000, 250),
			/** Longest answer read, in bytes after decompression; past it the client stops reading. @default 1048576 (1 MiB) */
			maxResponseBytes: integer(1, 2_147_483_647, 1_048_576),
			/** A fetch implementation to use instead of the global one. @default globalThis.fetch */
			fetch: z.optional(z.custom<FetchLike>((value) => typeof value === "function", "must be a function")),
			/** Observability callbacks; every payload is redacted. @default none */
			hooks: z.optional(
				z.strictObject(
					{ onRequest: hook(), onResponse: hook(), onRetry: hook(), onError: hook() },
					{ error: "must be an object of hook functions" },
				),
			),
			/** A console-like logger (`debug`, `info`, `warn`, `error`); lines are redacted. @default none */
			logger: z.optional(
				z.custom<Logger>(
					(value) => typeof value === "object" && value !== null,
					"must be an object with debug/info/warn/error methods",
				),
			),
			/** Lowest level logged. @default "info" */
			logLevel: z._default(
				z.enum(["debug", "info", "warn", "error", "silent"], { error: "must be debug, info, warn, error or silent" }),
				"info",
			),
			/** Accept `http:` for loopback hosts in baseUrl and the callback/notification/cancel/error URLs (local development only, D10). @default false */
			allowLoopbackHttp: flag(false),
			/** Require a signature on creation answers (checkout, card charge, refund). Query answers are always verified. @default true */
			requireSignedResponses: flag(true),
			/** How a 2.0 message becomes its signed string, for a gateway that differs from the reference form. @default canonicalString */
			signedString: z.optional(
				z.custom<SignedStringForm>((value) => typeof value === "function", "must be a function"),
			),
		})
		.check(
			z.superRefine((options, ctx) => {
				let url: URL;
				try {
					url = new URL(options.baseUrl);
				} catch {
					ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "must be an absolute URL" });
					return;
				}
				const loopbackHttp =
					url.protocol === "http:" && options.allowLoopbackHttp === true && isLoopbackHost(url.hostname);
				if (url.protocol !== "https:" && !loopbackHttp) {
					ctx.addIssue({
						code: "custom",
						path: ["baseUrl"],
						message: "must be an https URL (http only for loopback hosts with allowLoopbackHttp)",
					});
				}
				if (url.search || url.hash || url.username || url.password) {
					ctx.addIssue({
						code: "custom",
						path: ["baseUrl"],
						message: "must not carry a query, fragment or credentials",
					});
				}
			}),
		),
);

/** Options of `new GatewayClient(...)`. Checked against `clientOptionsSchema` at compile time and at construction. */
export interface GatewayClientOptions {
	/** The gateway's base URL, such as `https://gateway.example`; `/v2/...` is appended. https only (http only for loopback hosts with `allowLoopbackHttp`); no query, fragment or credentials. */
	baseUrl: string;
	/**
	 * Your merchant ID (1-50 characters). Sent in checkout and S2S requests; in
	 * queries and refunds only with `alwaysSendMerchantId`.
	 */
	merchantId: string;
	/**
	 * Also send `merchantId` in the transaction query, the refund and the refund
	 * query. Their spec tables have none, and the gateway finds the merchant
	 * through the transaction (D11); turn this on only for a gateway that asks
	 * for it there. The field is then signed like every other.
	 * @default false
	 */
	alwaysSendMerchantId?: boolean | undefined;
	/** The merchant private key that signs requests (D1): PEM, base64 DER, DER bytes or a loaded `PrivateKey`. Parsed once, never shown. */
	privateKey: PrivateKeyLike;
	/** The gateway's public key, or several during a key rotation (any one may verify answers, IPNs and callbacks). */
	gatewayPublicKey: PublicKeyLike | PublicKeyLike[];
	/** The account's signing version. Answers, IPNs and callbacks are accepted in this version only. @default "2.0" (what omitting signVersion means in the spec) */
	signVersion?: "2.0" | "2.1" | undefined;
	/** Timeout of each attempt in milliseconds (connection, answer and body). @default 30000 */
	timeoutMs?: number | undefined;
	/** Retries of the two QUERY endpoints on network errors, timeouts, 408, 429 and 5xx. Creates are never retried. @default 2 */
	maxRetries?: number | undefined;
	/** First backoff delay in milliseconds; doubles per retry, full jitter, capped at 8 s. A Retry-After up to 60 s wins. @default 250 */
	retryBaseDelayMs?: number | undefined;
	/**
	 * Longest answer the client reads, in bytes after decompression. Past it the
	 * client stops reading and throws `ResponseTooLargeError` (on a create,
	 * `OutcomeUnknownError` with that cause: the request may have been processed).
	 * Gateway answers are a few kilobytes; the limit guards memory against an
	 * endless answer or a decompression bomb.
	 * @default 1048576 (1 MiB)
	 */
	maxResponseBytes?: number | undefined;
	/** A fetch implementation to use instead of the global one. @default globalThis.fetch (looked up at each request) */
	fetch?: FetchLike | undefined;
	/** Observability callbacks; every payload is redacted. @default none */
	hooks?: ClientHooks | undefined;
	/** A console-like logger (`debug`, `info`, `warn`, `error`); every line is redacted. @default none */
	logger?: Logger | undefined;
	/** Lowest level logged: traffic is `debug`, retries `warn`, failures `error`. @default "info" */
	logLevel?: "debug" | "info" | "warn" | "error" | "silent" | undefined;
	/** Accept `http:` for loopback hosts in `baseUrl` and in the callback/notification/cancel/error URLs (local development only, D10). @default false */
	allowLoopbackHttp?: boolean | undefined;
	/** Require a signature on creation answers (checkout, card charge, refund). Query answers are always verified. @default true */
	requireSignedResponses?: boolean | undefined;
	/**
	 * How a 2.0 message becomes the string its signature covers. Leave it unset: the SDK uses the
	 * gateway's reference form. Set it only for a gateway that signs differently (the signature
	 * doctor, `npx merchant-gateway doctor`, tells which form verifies and what to set here).
	 * @default the gateway's reference form (`canonicalString`)
	 */
	signedString?: SignedStringForm | undefined;
}

type SchemaOptions = LazyInput<typeof clientOptionsSchema>;
export type _OptionsKeysMatch = Assert<
	SameShape<Omit<GatewayClientOptions, "hooks" | "logger">, Omit<SchemaOptions, "hooks" | "logger">>
>;
export type _OptionsAccepted = Assert<GatewayClientOptions extends SchemaOptions ? true : false>;

/**
 * The gateway client: five endpoints, validated, signed in the account's
 * version, verified, with typed results and errors.
 *
 * ```ts
 * const gateway = new GatewayClient({ baseUrl, merchantId, privateKey, gatewayPublicKey });
 * const { paymentLink } = await gateway.checkout.create({ orderRef, amount: 10.5, currency: "EUR", ... });
 * ```
 *
 * Keys are parsed once here. Neither `JSON.stringify` nor `util.inspect` shows them.
 */
export class GatewayClient {
	/** Hosted checkout sessions and DIRECT_POST forms. */
	readonly checkout: CheckoutResource;
	/** Server-to-server card charges. */
	readonly card: CardResource;
	/** Transaction query. */
	readonly transactions: TransactionsResource;
	/** Refund creation and query. */
	readonly refunds: RefundsResource;
	/** IPN verification with this client's keys. */
	readonly notifications: NotificationsResource;
	/** Callback redirect decoding with this client's keys. */
	readonly callbacks: CallbacksResource;
	readonly #summary: { baseUrl: string; merchantId: string; signVersion: string };

	/**
	 * @throws ConfigurationError listing every wrong option (never its value).
	 * @throws InvalidKeyError when a key cannot be loaded.
	 */
	constructor(options: GatewayClientOptions) {
		const parsed = clientOptionsSchema.safeParse(options);
		if (!parsed.success) throw new ConfigurationError(toFieldIssues(parsed.error));
		const config = parsed.data;
		const baseUrl = config.baseUrl.replace(/\/+$/, "");
		const observer = new Observer(config.hooks as ClientHooks | undefined, config.logger, config.logLevel);
		const ctx: ClientContext = {
			baseUrl,
			merchantId: config.merchantId,
			alwaysSendMerchantId: config.alwaysSendMerchantId,
			privateKey: toPrivateKey(config.privateKey),
			publicKeys: toPublicKeys(config.gatewayPublicKey as PublicKeyLike | PublicKeyLike[]),
			signVersion: config.signVersion,
			signedString: config.signedString,
			requireSignedResponses: config.requireSignedResponses,
			allowLoopbackHttp: config.allowLoopbackHttp,
			observer,
			transport: new Transport({
				baseUrl,
				fetch: config.fetch,
				timeoutMs: config.timeoutMs,
				maxRetries: config.maxRetries,
				retryBaseDelayMs: config.retryBaseDelayMs,
				maxResponseBytes: config.maxResponseBytes,
				userAgent: userAgent(),
				observer,
			}),
		};
		this.checkout = new CheckoutResource(ctx);
		this.card = new CardResource(ctx);
		this.transactions = new TransactionsResource(ctx);
		this.refunds = new RefundsResource(ctx);
		this.notifications = new NotificationsResource(ctx);
		this.callbacks = new CallbacksResource(ctx, this.transactions);
		this.#summary = { baseUrl, merchantId: config.merchantId, signVersion: config.signVersion };
	}

	/** What `JSON.stringify` shows: no keys. */
	toJSON(): {
		/** The gateway's base URL. */
		baseUrl: string;
		/** Your merchant ID. */
		merchantId: string;
		/** The version requests are signed in. */
		signVersion: string;
	} {
		return { ...this.#summary };
	}

	[Symbol.for("nodejs.util.inspect.custom")](): string {
		const { baseUrl, merchantId, signVersion } = this.#summary;
		return `GatewayClient { baseUrl: ${JSON.stringify(baseUrl)}, merchantId: ${JSON.stringify(merchantId)}, signVersion: "${signVersion}", keys: [redacted] }`;
	}
}
