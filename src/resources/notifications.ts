import { type DecodeCallbackOptions, decodeCallback } from "../notifications/callback.js";
import { type NotificationEvent, verifyNotification } from "../notifications/verify.js";
import type { CallbackResult } from "../schemas/resources.js";
import type { CallbackInput } from "../signing/callback-url.js";
import type { ClientContext } from "./context.js";

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
		const { publicKeys, signVersion, signedString } = this.#ctx;
		return verifyNotification(body, { gatewayPublicKey: publicKeys, acceptVersions: [signVersion], signedString });
	}
}

/** `gateway.callbacks`: the buyer's redirect to callbackUrl, verified. */
export class CallbacksResource {
	readonly #ctx: ClientContext;

	/** @internal */
	constructor(ctx: ClientContext) {
		this.#ctx = ctx;
	}

	/**
	 * Decodes and verifies a callback redirect (full URL, query string,
	 * URLSearchParams or a parsed query object), accepting the client's signing
	 * version only. Same as `decodeCallback(input, { gatewayPublicKey, acceptVersions: [signVersion] })`.
	 */
	decode(input: CallbackInput): CallbackResult {
		const { publicKeys, signVersion, signedString } = this.#ctx;
		const options: DecodeCallbackOptions = { gatewayPublicKey: publicKeys, acceptVersions: [signVersion], signedString };
		return decodeCallback(input, options);
	}
}
