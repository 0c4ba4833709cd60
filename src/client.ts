import { apiBaseUrl, clientOptionsSchema, type GatewayClientOptions } from "./client-options.js";
import { ConfigurationError } from "./errors/configuration-error.js";
import { toFieldIssues } from "./internal/field-issues.js";
import { userAgent } from "./internal/version.js";
import { callingClient, Observer } from "./resources/call-watch.js";
import { CardResource } from "./resources/card.js";
import { CheckoutResource } from "./resources/checkout.js";
import type { ClientContext } from "./resources/context.js";
import { CallbacksResource, NotificationsResource } from "./resources/notifications.js";
import { RefundsResource } from "./resources/refunds.js";
import { TransactionsResource } from "./resources/transactions.js";
import { toPrivateKey, toPublicKeys } from "./signing/keys.js";
import { Transport } from "./transport/http.js";

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
	/** The account's signing version: requests are signed in it, responses, IPNs and callbacks accepted in it. */
	readonly signVersion: "2.0" | "2.1";
	readonly #summary: { baseUrl: string; merchantId: string; signVersion: string };

	/**
	 * @throws ConfigurationError listing every wrong option (never its value).
	 * @throws InvalidKeyError when a key cannot be loaded.
	 */
	constructor(options: GatewayClientOptions) {
		const parsed = clientOptionsSchema.safeParse(options);
		if (!parsed.success) throw new ConfigurationError(toFieldIssues(parsed.error));
		const config = parsed.data;
		const baseUrl = apiBaseUrl(config.baseUrl);
		const observer = new Observer(config.hooks, config.logger, config.logLevel);
		const ctx: ClientContext = {
			baseUrl,
			merchantId: config.merchantId,
			alwaysSendMerchantId: config.alwaysSendMerchantId,
			privateKey: toPrivateKey(config.privateKey),
			publicKeys: toPublicKeys(config.gatewayPublicKey),
			signVersion: config.signVersion,
			signedString: config.signedString,
			requireSignedResponses: config.requireSignedResponses,
			allowLoopbackHttp: config.allowLoopbackHttp,
			observer,
			caller: callingClient(baseUrl, config.signVersion),
			transport: new Transport({
				baseUrl,
				fetch: config.fetch,
				timeoutMs: config.timeoutMs,
				maxRetries: config.maxRetries,
				retryBaseDelayMs: config.retryBaseDelayMs,
				maxResponseBytes: config.maxResponseBytes,
				userAgent: userAgent(),
			}),
		};
		this.checkout = new CheckoutResource(ctx);
		this.card = new CardResource(ctx);
		this.transactions = new TransactionsResource(ctx);
		this.refunds = new RefundsResource(ctx);
		this.notifications = new NotificationsResource(ctx);
		this.callbacks = new CallbacksResource(ctx, this.transactions);
		this.signVersion = config.signVersion;
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
		const shown = `baseUrl: ${JSON.stringify(baseUrl)}, merchantId: ${JSON.stringify(merchantId)}`;
		return `GatewayClient { ${shown}, signVersion: "${signVersion}", keys: [redacted] }`;
	}
}
