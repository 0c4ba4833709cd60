import { MESSAGES } from "../books/gateway-messages.js";

/** The responses the sandbox's API gives, in the spec's shapes (success responses are `GatewaySigner`'s). */

/** What an API rule returns; each face turns it into its own response type. */
export interface ApiResponse {
	status: number;
	json: Record<string, unknown>;
	/** Why the request was refused, when the response cannot say (the real gateway's does not): for `onEvent` only. */
	detail?: string | undefined;
}

/** Whether a step returned the response that ends the request rather than its result. */
export const isApiResponse = (value: unknown): value is ApiResponse =>
	typeof value === "object" &&
	value !== null &&
	"status" in value &&
	"json" in value &&
	typeof (value as ApiResponse).status === "number";

/** One field the sandbox refused, as the spec's 422 lists it. */
export interface FieldErrors {
	field: string;
	message: string[];
}

/** 422 with `errors[]` of `{ field, message[] }`, under the gateway's own message (D12). */
export function validationFailed(errors: readonly FieldErrors[], message: string = MESSAGES.invalidData): ApiResponse {
	return { status: 422, json: { status: "error", message, errors } };
}

/** A field's name as the gateway words it: `billingEmail` -> `billing email`, `a.time_zone` -> `a.time zone`. */
function attributeName(field: string): string {
	return field
		.split(".")
		.map((part) =>
			part
				.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
				.replaceAll("_", " ")
				.toLowerCase(),
		)
		.join(".");
}

/** A rule in the gateway's style (D12): `("billingEmail", "is required")` -> "The billing email field is required." */
export function fieldMessage(field: string, rule: string): string {
	return `The ${attributeName(field)} field ${rule}.`;
}

/** Groups `{ field, message }` issues (a rule each, such as "is required") into the spec's `{ field, message[] }`. */
export function groupIssues(issues: readonly { field: string; message: string }[]): FieldErrors[] {
	const byField = new Map<string, string[]>();
	for (const issue of issues) {
		const list = byField.get(issue.field) ?? [];
		list.push(fieldMessage(issue.field, issue.message));
		byField.set(issue.field, list);
	}
	return [...byField].map(([field, message]) => ({ field, message }));
}

/** 422 for one field; `rule` as the SDK words rules ("has already been taken"). */
export function fieldError(field: string, rule: string): ApiResponse {
	return validationFailed([{ field, message: [fieldMessage(field, rule)] }]);
}

/** S2S processing error: 400 or 500 with data.transactionId. */
export const processingFailed = (status: 400 | 500, message: string, transactionId: string): ApiResponse => ({
	status,
	json: { status: "error", message, data: { transactionId } },
});

/** The merchant has HPP processors only: 422, top-level null transactionId, no errors, no data. */
export const noS2SProvider = (): ApiResponse => ({
	status: 422,
	json: {
		status: "error",
		transactionId: null,
		message:
			"No S2S-capable payment provider is configured for this merchant. Add one, or use checkout or iframe instead.",
	},
});

/** Checkout creation failure (connectionMode API). The spec leaves the status open; the sandbox uses 400. */
export const checkoutFailed = (message: string): ApiResponse => ({
	status: 400,
	json: { status: "error", transactionId: null, paymentLink: null, message },
});

/**
 * A request the gateway cannot verify: a bad, missing or foreign signature, or
 * an unknown merchant. The real gateway responds HTTP 500 with this message (D12);
 * `detail` says why, for the sandbox's events.
 */
export const invalidSignature = (merchantId: string, detail: string): ApiResponse => ({
	status: 500,
	json: { status: "error", message: `Invalid signature with merchantId: ${merchantId}` },
	detail,
});

/**
 * A request naming a merchant the sandbox has no account for. The gateway's refusal (D12), its message
 * followed by the merchant ids the sandbox knows, so the mistake shows wherever the message does.
 */
export function unknownMerchant(merchantId: string, knownIds: readonly string[]): ApiResponse {
	const known =
		knownIds.length === 0 ? "it has no merchant account" : `its merchant ids: ${knownIds.slice(0, 10).join(", ")}`;
	const refusal = invalidSignature(merchantId, `no merchant account is registered for this merchantId; ${known}`);
	const message = `${refusal.json.message} (this sandbox has no merchant ${merchantId}; ${known})`;
	return { ...refusal, json: { ...refusal.json, message } };
}

/** Unknown transaction or refund on a query endpoint. The spec leaves this open; the sandbox uses 404. */
export const notFound = (message: string): ApiResponse => ({ status: 404, json: { status: "error", message } });

export const badRequest = (message: string, status = 400): ApiResponse => ({
	status,
	json: { status: "error", message },
});
