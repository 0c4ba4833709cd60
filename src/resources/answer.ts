import { AuthenticationError } from "../errors/authentication-error.js";
import { CheckoutError } from "../errors/checkout-error.js";
import type { GatewayError } from "../errors/gateway-error.js";
import { type GatewayFieldError, GatewayValidationError } from "../errors/gateway-validation-error.js";
import { InvalidResponseError } from "../errors/invalid-response-error.js";
import { NoS2SProviderError } from "../errors/no-s2s-provider-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { ProcessingError } from "../errors/processing-error.js";
import { RateLimitError } from "../errors/rate-limit-error.js";
import { type KnownSecrets, redactText } from "../internal/redact.js";
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

/** The start of an answer's body, redacted (of the request's secrets too), short enough for an error message. */
export function excerpt(answer: GatewayAnswer): string {
	const safe = redactText(answer.text.slice(0, 4000), answer.secrets);
	return safe.length > 200 ? `${safe.slice(0, 200)}…` : safe;
}

/** The body as a JSON object, or undefined when it is not one. */
export function parseBody(text: string): Record<string, unknown> | undefined {
	if (text === "") return undefined;
	try {
		const value: unknown = JSON.parse(text);
		return typeof value === "object" && value !== null && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

function gatewayMessage(body: Record<string, unknown> | undefined, fallback: string, secrets: KnownSecrets): string {
	const message = body?.message;
	return typeof message === "string" && message.trim() !== "" ? redactText(message, secrets).slice(0, 1000) : fallback;
}

/**
 * A value of an error body as text. JSON can nest deeper than `String()` recurses, or name a
 * member `toString`, and `String()` then throws: such a value is shown as a placeholder.
 */
function textOf(value: unknown): string {
	try {
		return String(value);
	} catch {
		return "[unreadable value]";
	}
}

function fieldErrors(errors: unknown[], secrets: KnownSecrets): GatewayFieldError[] {
	return errors.map((item) => {
		const entry = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
		const raw = entry.message ?? entry.messages;
		const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
		const messages = list.map((message) => redactText(textOf(message), secrets));
		return { field: redactText(textOf(entry.field ?? ""), secrets), messages };
	});
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;
/** An id taken from an unsigned error body: kept when it looks like a ULID, redacted like any text otherwise. */
function bodyId(value: unknown, secrets: KnownSecrets): string | undefined {
	if (typeof value !== "string") return undefined;
	return ULID.test(value) ? value : redactText(value, secrets).slice(0, 100);
}

/**
 * A create whose answer arrived but cannot be read: the gateway may have
 * processed it. `circumstance` says what went wrong and which setting to check.
 */
export function unknownOutcome(context: AnswerContext, cause: GatewayError, circumstance: string): OutcomeUnknownError {
	const where = { status: cause.status, path: context.path, cause };
	return new OutcomeUnknownError(context.what, context.ids, where, circumstance);
}

/** A proxy's answer (502/503/504 without a gateway body): the gateway behind it may have processed the request. */
const isProxyStatus = (status: number) => status === 502 || status === 503 || status === 504;

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

const NO_S2S_ADVICE = "The account has only hosted-page processors: ask for an S2S-capable processor, or use checkout.";

/**
 * The error an answer stands for, or undefined when it is a success to verify.
 * Error answers are unsigned (D6), so their content only picks the class; any
 * text taken from them is redacted, of the request's own card data too.
 */
export function errorForAnswer(
	answer: GatewayAnswer,
	body: Record<string, unknown> | undefined,
	context: AnswerContext,
): GatewayError | undefined {
	const { status, secrets } = answer;
	const { path } = context;
	const where = { status, path };
	const say = (fallback: string) => gatewayMessage(body, fallback, secrets);
	if (status === 401 || status === 403) {
		const refused = `The gateway refused the request's credentials or signature (HTTP ${status})`;
		return new AuthenticationError(`${refused}: ${say("no message")}`, where);
	}
	if (isSignatureRefusal(status, answer.text)) {
		// An HTTP 500, but a refusal: nothing was processed (D12).
		const said = say("no message");
		const advice =
			"check the key registered for this merchantId and the signed string (npx merchant-gateway sign --explain, npx merchant-gateway doctor)";
		const refused = `The gateway refused the request's signature (HTTP ${status}): ${said}.`;
		return new AuthenticationError(`${refused} Nothing was processed; ${advice}.`, { status, path });
	}
	if (status === 429) {
		const retryAfterMs = parseRetryAfter(answer.headers.get("retry-after"));
		const seconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
		return new RateLimitError(
			`The gateway is rate limiting requests (HTTP 429)${seconds === undefined ? "" : `; retry after ${seconds} s`}.`,
			seconds,
			{
				status,
				path,
			},
		);
	}
	const success = status >= 200 && status < 300;
	// On a create, an unreadable 2xx or 5xx answer may follow a processed request (a 4xx one was refused).
	const mayBeProcessed = context.kind === "create" && (success || status >= 500);
	if (mayBeProcessed && isProxyStatus(status) && body?.status !== "error") {
		const cause = new InvalidResponseError(`HTTP ${status} without a gateway answer.`, excerpt(answer), where);
		return new OutcomeUnknownError(context.what, context.ids, { ...where, cause });
	}
	if (!body) {
		const notJson = `The gateway's answer (HTTP ${status}) is not a JSON object.`;
		const unreadable = new InvalidResponseError(notJson, excerpt(answer), where);
		const circumstance = `its answer (HTTP ${status}) arrived but could not be read (not a JSON object)`;
		return mayBeProcessed ? unknownOutcome(context, unreadable, circumstance) : unreadable;
	}
	if (status === 422 && Array.isArray(body.errors)) {
		const refusedFields = say("The gateway refused the request's fields.");
		return new GatewayValidationError(refusedFields, fieldErrors(body.errors, secrets), where);
	}
	if (
		status === 422 &&
		context.endpoint === "card" &&
		"transactionId" in body &&
		body.transactionId === null &&
		!("data" in body)
	) {
		return new NoS2SProviderError(`${say("No S2S provider is configured.")} ${NO_S2S_ADVICE}`, where);
	}
	const saysError = body.status === "error";
	if (!saysError && success) return undefined;
	if (saysError && context.endpoint === "checkout") {
		return new CheckoutError(`The checkout session was not created: ${say("no message")}`, where);
	}
	if (status === 422) return new GatewayValidationError(say("The gateway refused the request."), [], where);
	if (saysError) {
		const data = isObject(body.data) ? body.data : undefined;
		const transactionId = bodyId(data?.transactionId, secrets) ?? context.ids.transactionId;
		return new ProcessingError(`The gateway could not process the request: ${say("no message")}`, transactionId, where);
	}
	const unexpected = `The gateway answered HTTP ${status} with a body that is not a gateway answer.`;
	const strange = new InvalidResponseError(unexpected, excerpt(answer), where);
	const circumstance = `its answer (HTTP ${status}) arrived but could not be read (not a gateway answer)`;
	return mayBeProcessed ? unknownOutcome(context, strange, circumstance) : strange;
}
