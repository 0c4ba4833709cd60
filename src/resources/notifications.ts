import { InvalidNotificationError } from "../errors/invalid-notification-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { type DecodeCallbackOptions, decodeCallback } from "../notifications/message/callback.js";
import { type NotificationEvent, verifyNotification } from "../notifications/message/verify.js";
import type { CallbackResult, Transaction } from "../schemas/resources.js";
import { type CallbackInput, unverifiedCallbackFields } from "../signing/callback-url.js";
import type { RequestOptions } from "../transport/http.js";
import type { ClientContext } from "./context.js";
import type { TransactionsResource } from "./transactions.js";

/** `gateway.notifications`: IPN verification with the client's gateway keys and signing version. */
export class NotificationsResource {
	readonly #ctx: ClientContext;

	/** @internal */
	constructor(ctx: ClientContext) {
		this.#ctx = ctx;
	}

	/**
	 * Verifies an IPN body (raw text, bytes, or a parsed object) with the
	 * client's gateway public key(s), accepting the client's signing version only.
	 * Same as `verifyNotification(body, { gatewayPublicKey, acceptVersions: [signVersion] })`.
	 */
	verify(body: unknown): NotificationEvent {
		return verifyNotification(body, verifyOptions(this.#ctx));
	}
}

/** The client's gateway keys, its signing version only, and its signed-string form. */
function verifyOptions({ publicKeys, signVersion, signedString }: ClientContext): DecodeCallbackOptions {
	return { gatewayPublicKey: publicKeys, acceptVersions: [signVersion], signedString };
}

/** A callback's outcome, verified by its own signature or, when it came unsigned, by a transaction query. */
export type ResolvedCallback =
	| (CallbackResult & {
			/** The callback's own signature verified it. */
			verifiedBy: "signature";
	  })
	| (CallbackResult & {
			/** The callback came unsigned; these fields come from a verified transaction query. */
			verifiedBy: "transaction_query";
			/** The verified transaction the query returned. */
			transaction: Transaction;
	  });

/** `gateway.callbacks`: the buyer's redirect to callbackUrl, verified. */
export class CallbacksResource {
	readonly #ctx: ClientContext;
	readonly #transactions: TransactionsResource;

	/** @internal */
	constructor(ctx: ClientContext, transactions: TransactionsResource) {
		this.#ctx = ctx;
		this.#transactions = transactions;
	}

	/**
	 * Decodes and verifies a callback redirect (full URL, query string,
	 * URLSearchParams or a parsed query object), accepting the client's signing
	 * version only. Same as `decodeCallback(input, { gatewayPublicKey, acceptVersions: [signVersion] })`.
	 * A callback without a signature is refused: use `resolve` for those.
	 */
	decode(input: CallbackInput): CallbackResult {
		return decodeCallback(input, verifyOptions(this.#ctx));
	}

	/**
	 * The verified outcome of a callback redirect, whether or not the gateway signed it: a signed
	 * callback is verified by its signature; an unsigned one (the gateway's guide allows that) is
	 * never trusted, and its transaction is queried instead (verified, as every query). `verifiedBy`
	 * says which. A callback whose signature is present but wrong is refused, never queried around.
	 *
	 * @throws SignatureVerificationError when the signature is present and does not verify.
	 * @throws InvalidNotificationError when an unsigned callback names no transaction to query.
	 * @throws the errors of `transactions.retrieve` when the query fails.
	 */
	async resolve(input: CallbackInput, options?: RequestOptions): Promise<ResolvedCallback> {
		try {
			return { ...this.decode(input), verifiedBy: "signature" };
		} catch (error) {
			if (!(error instanceof SignatureVerificationError && error.reason === "missing_signature")) throw error;
		}
		const claimed = unverifiedCallbackFields(input).transactionId;
		if (typeof claimed !== "string" || claimed.trim() === "") {
			throw new InvalidNotificationError(
				"The callback is unsigned and names no transactionId, so it cannot be confirmed with a query.",
				"transactionId",
			);
		}
		const transaction = await this.#transactions.retrieve(claimed.trim(), options);
		const { status, transactionId, ref, amount, currency } = transaction;
		return { status, transactionId, ref, amount, currency, verifiedBy: "transaction_query", transaction };
	}
}
