import { AuthenticationError } from "../errors/authentication-error.js";
import { CheckoutError } from "../errors/checkout-error.js";
import type { GatewayError } from "../errors/gateway-error.js";
import { type GatewayFieldError, GatewayValidationError } from "../errors/gateway-validation-error.js";
import { InvalidResponseError } from "../errors/invalid-response-error.js";
import { NoS2SProviderError } from "../errors/no-s2s-provider-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { ProcessingError } from "../errors/processing-error.js";
import { RateLimitError } from "../errors/rate-limit-error.js";
import { redactText } from "../internal/redact.js";
import type { GatewayAnswer } from "../transport/http.js";
import { parseRetryAfter } from "../transport/retry-policy.js";
import { isSignatureRefusal } from "../transport/signature-refusal.js";

/** Which endpoint an answer belongs to; error shapes differ per endpoint. */
export type Endpoint = "checkout" | "card" | "transactionQuery" | "refund" | "refundQuery";

export interface AnswerContext {
	endpoint: Endpoint;
	path: string;
	kind: "create" | "query";
	what: string;
	ids: { orderRef?: string | undefined; transactionId?: string | undefined };
}

/** The start of a body, redacted, short enough for an error message. */
export function excerpt(text: string): string {
	const safe = redactText(text.slice(0, 4000));
	return safe.length > 200 ? `${safe.slice(0, 200)}…` : safe;
}

/** The body as a JSON object, or undefined when it is not one. */
export function parseBody(text: string): Record<string, unknown> | undefined {
	if (text === "") return undefined;
	try {
		const value: unknown = JSON.parse(text);
		return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
	} catch {
		return undefined;
	}
}

function gatewayMessage(body: Record<string, unknown> | undefined, fallback: string): string {
	const message = body?.message;
	return typeof message === "string" && message.trim() !== "" ? redactText(message).slice(0, 1000) : fallback;
}

function fieldErrors(errors: unknown[]): GatewayFieldError[] {
	return errors.map((item) => {
		const entry = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
		const raw = entry.message ?? entry.messages;
		const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
		return { field: redactText(String(entry.field ?? "")), messages: list.map((message) => redactText(String(message))) };
	});
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The error an answer stands for, or undefined when it is a success to verify.
 * Error answers are unsigned (D6), so their content only picks the class; any
 * text taken from them is redacted.
 */
export function errorForAnswer(answer: GatewayAnswer, body: Record<string, unknown> | undefined, context: AnswerContext): GatewayError | undefined {
	const { status } = answer;
	const { path } = context;
	if (status === 401 || status === 403) {
		return new AuthenticationError(`The gateway refused the request's credentials or signature (HTTP ${status}): ${gatewayMessage(body, "no message")}`, {
			status,
			path,
		});
	}
	if (isSignatureRefusal(status, answer.text)) {
		// An HTTP 500, but a refusal: nothing was processed (D12).
		const said = gatewayMessage(body, "no message");
		const advice = "check the key registered for this merchantId and the signed string (npx merchant-gateway sign)";
		const refused = `The gateway refused the request's signature (HTTP ${status}): ${said}.`;
		return new AuthenticationError(`${refused} Nothing was processed; ${advice}.`, { status, path });
	}
	if (status === 429) {
		const retryAfterMs = parseRetryAfter(answer.headers.get("retry-after"));
		const seconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
		return new RateLimitError(`The gateway is rate limiting requests (HTTP 429)${seconds === undefined ? "" : `; retry after ${seconds} s`}.`, seconds, {
			status,
			path,
		});
	}
	const success = status >= 200 && status < 300;
	if (!body) {
		if (!success && context.kind === "create" && (status === 502 || status === 503 || status === 504)) {
			// A proxy's answer: the gateway behind it may or may not have processed the request.
			const cause = new InvalidResponseError(`HTTP ${status} without a gateway answer.`, excerpt(answer.text), { status, path });
			return new OutcomeUnknownError(context.what, context.ids, { status, path, cause });
		}
		return new InvalidResponseError(`The gateway's answer (HTTP ${status}) is not a JSON object.`, excerpt(answer.text), { status, path });
	}
	if (status === 422 && Array.isArray(body.errors)) {
		return new GatewayValidationError(gatewayMessage(body, "The gateway refused the request's fields."), fieldErrors(body.errors), { status, path });
	}
	if (status === 422 && context.endpoint === "card" && "transactionId" in body && body.transactionId === null && !("data" in body)) {
		return new NoS2SProviderError(
			`${gatewayMessage(body, "No S2S provider is configured.")} The merchant account has only hosted-page processors: ask for an S2S-capable processor, or use checkout.`,
			{ status, path },
		);
	}
	const saysError = body.status === "error";
	if (!saysError && success) return undefined;
	if (saysError && context.endpoint === "checkout") {
		return new CheckoutError(`The checkout session was not created: ${gatewayMessage(body, "no message")}`, { status, path });
	}
	if (status === 422) {
		return new GatewayValidationError(gatewayMessage(body, "The gateway refused the request."), [], { status, path });
	}
	if (saysError) {
		const data = isObject(body.data) ? body.data : undefined;
		const transactionId = typeof data?.transactionId === "string" ? data.transactionId : context.ids.transactionId;
		return new ProcessingError(`The gateway could not process the request: ${gatewayMessage(body, "no message")}`, transactionId, { status, path });
	}
	if (context.kind === "create" && (status === 502 || status === 503 || status === 504)) {
		const cause = new InvalidResponseError(`HTTP ${status} without a gateway answer.`, excerpt(answer.text), { status, path });
		return new OutcomeUnknownError(context.what, context.ids, { status, path, cause });
	}
	return new InvalidResponseError(`The gateway answered HTTP ${status} with a body that is not a gateway answer.`, excerpt(answer.text), { status, path });
}
