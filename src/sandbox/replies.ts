import { type PrivateKey, toPrivateKey } from "../signing/keys.js";
import { type SignVersion, sealMessage } from "../signing/seal.js";

/**
 * The answers the sandbox gives, in the spec's shapes. Success answers are
 * signed with the gateway key in the account's signing version (D4, D6); error
 * answers are not signed (D6).
 */

/** What an API rule returns; each face turns it into its own response type. */
export interface ApiReply {
	status: number;
	json: Record<string, unknown>;
}

/** One field the sandbox refused, as the spec's 422 lists it. */
export interface FieldErrors {
	field: string;
	message: string[];
}

export class GatewaySigner {
	readonly #key: PrivateKey;

	constructor(privateKey: string) {
		this.#key = toPrivateKey(privateKey);
	}

	get key(): PrivateKey {
		return this.#key;
	}

	/** A flat response (checkout creation, transaction query) or an IPN body. */
	flat(fields: Record<string, unknown>, signVersion: SignVersion): Record<string, unknown> {
		return { ...sealMessage(fields, { privateKey: this.#key, signVersion }) };
	}

	/** A wrapped response (S2S charge, refund creation, refund query): status, message, signed data. */
	wrapped(status: string, message: string | null, data: Record<string, unknown>, signVersion: SignVersion): Record<string, unknown> {
		if (signVersion === "2.1") return { status, message, ...sealMessage(data, { privateKey: this.#key, signVersion: "2.1" }) };
		return { status, message, data: sealMessage(data, { privateKey: this.#key, signVersion: "2.0" }) };
	}
}

export const ok = (json: Record<string, unknown>, status = 200): ApiReply => ({ status, json });

/** 422 with `errors[]` of `{ field, message[] }`. */
export function validationFailed(errors: readonly FieldErrors[], message = "The given data was invalid."): ApiReply {
	return { status: 422, json: { status: "error", message, errors } };
}

/** Groups `{ field, message }` issues into the spec's `{ field, message[] }`. */
export function groupIssues(issues: readonly { field: string; message: string }[]): FieldErrors[] {
	const byField = new Map<string, string[]>();
	for (const issue of issues) {
		const list = byField.get(issue.field) ?? [];
		list.push(issue.message);
		byField.set(issue.field, list);
	}
	return [...byField].map(([field, message]) => ({ field, message }));
}

export const fieldError = (field: string, message: string): ApiReply => validationFailed([{ field, message: [message] }]);

/** S2S processing error: 400 or 500 with data.transactionId. */
export const processingFailed = (status: 400 | 500, message: string, transactionId: string): ApiReply => ({
	status,
	json: { status: "error", message, data: { transactionId } },
});

/** The merchant has HPP processors only: 422, top-level null transactionId, no errors, no data. */
export const noS2SProvider = (): ApiReply => ({
	status: 422,
	json: {
		status: "error",
		transactionId: null,
		message: "No S2S-capable payment provider is configured for this merchant. Add one, or use checkout or iframe instead.",
	},
});

/** Checkout creation failure (connectionMode API). The spec leaves the status open; the sandbox uses 400. */
export const checkoutFailed = (message: string): ApiReply => ({
	status: 400,
	json: { status: "error", transactionId: null, paymentLink: null, message },
});

/** A request whose signature did not verify, or from an unknown merchant. The spec leaves this open; the sandbox uses 401. */
export const unauthenticated = (message: string): ApiReply => ({ status: 401, json: { status: "error", message } });

/** Unknown transaction or refund on a query endpoint. The spec leaves this open; the sandbox uses 404. */
export const notFound = (message: string): ApiReply => ({ status: 404, json: { status: "error", message } });

export const badRequest = (message: string, status = 400): ApiReply => ({ status, json: { status: "error", message } });
