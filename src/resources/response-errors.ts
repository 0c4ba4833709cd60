import type { EndpointName, EndpointRow } from "../endpoints.js";
import { AuthenticationError } from "../errors/authentication-error.js";
import { CheckoutError } from "../errors/checkout-error.js";
import type { GatewayError } from "../errors/gateway-error.js";
import { type GatewayFieldError, GatewayValidationError } from "../errors/gateway-validation-error.js";
import { InvalidResponseError } from "../errors/invalid-response-error.js";
import { NoS2SProviderError } from "../errors/no-s2s-provider-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { ProcessingError } from "../errors/processing-error.js";
import { RateLimitError } from "../errors/rate-limit-error.js";
import { isPlainObject } from "../internal/plain-object.js";
import { type KnownSecrets, quotesGateway, redactText } from "../internal/redact.js";
import { parseRetryAfter } from "../transport/retry.js";
import { isSignatureRefusal } from "../transport/signature-refusal.js";

/** The call a response belongs to: the endpoint table's facts about it, and what it was about. */
export interface CallContext extends Pick<EndpointRow, "path" | "kind" | "what" | "envelope"> {
	endpoint: EndpointName;
	/** The ids an unknown outcome tells the merchant to reconcile by. */
	ids: ConstructorParameters<typeof OutcomeUnknownError>[1];
}

/** A response whose body was read, with the request's secrets to redact from anything shown of it. */
export interface ReadResponse {
	status: number;
	headers: Headers;
	text: string;
	/** The request's card number and security code: whatever the response shows is redacted of them. */
	secrets: KnownSecrets;
}

/** The start of a response's body, redacted (of the request's secrets too), short enough for an error message. */
export function excerpt(response: ReadResponse): string {
	const safe = redactText(response.text.slice(0, 4000), response.secrets);
	return safe.length > 200 ? `${safe.slice(0, 200)}…` : safe;
}

/** A response off its documented shape: status, path and a redacted excerpt. */
export function offSchema(response: ReadResponse, path: string, detail: string): InvalidResponseError {
	const message = `The gateway's response does not have the documented shape: ${detail}.`;
	return new InvalidResponseError(message, excerpt(response), { status: response.status, path });
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
		const entry = isPlainObject(item) ? item : {};
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

/** A create whose response arrived but cannot be read or trusted: the gateway may have processed it. */
export function unknownOutcome(call: CallContext, cause: GatewayError, circumstance: string): OutcomeUnknownError {
	return new OutcomeUnknownError(call.what, call.ids, { status: cause.status, path: call.path, cause }, circumstance);
}

/** A proxy's response (502/503/504 without a gateway body): the gateway behind it may have processed the request. */
const isProxyStatus = (status: number) => status === 502 || status === 503 || status === 504;

const NO_S2S_ADVICE = "The account has only hosted-page processors: ask for an S2S-capable processor, or use checkout.";
const SIGNATURE_ADVICE =
	"check the key registered for this merchantId and the signed string " +
	"(npx merchant-gateway sign --explain, npx merchant-gateway doctor)";

/**
 * The error a response stands for, or undefined when it is a success to verify. Error responses are
 * unsigned, so their content only picks the class; any text taken from them is redacted, of the
 * request's own card data too.
 */
export function errorForResponse(
	response: ReadResponse,
	body: Record<string, unknown> | undefined,
	call: CallContext,
): GatewayError | undefined {
	const quoted: string[] = [];
	const error = describeResponse(response, body, call, quoted);
	return error && quotesGateway(error, quoted);
}

/** {@link errorForResponse}, collecting into `quoted` the gateway's words each message quotes. */
function describeResponse(
	response: ReadResponse,
	body: Record<string, unknown> | undefined,
	call: CallContext,
	quoted: string[],
): GatewayError | undefined {
	const { status, secrets } = response;
	const where = { status, path: call.path };
	const say = (fallback: string) => {
		const text = gatewayMessage(body, fallback, secrets);
		if (text !== fallback) quoted.push(text);
		return text;
	};
	if (status === 401 || status === 403) {
		const refused = `The gateway refused the request's credentials or signature (HTTP ${status})`;
		return new AuthenticationError(`${refused}: ${say("no message")}`, where);
	}
	if (isSignatureRefusal(status, response.text)) {
		// An HTTP 500, but a refusal: nothing was processed.
		const refused = `The gateway refused the request's signature (HTTP ${status}): ${say("no message")}.`;
		return new AuthenticationError(`${refused} Nothing was processed; ${SIGNATURE_ADVICE}.`, where);
	}
	if (status === 429) {
		const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
		const seconds = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
		const wait = seconds === undefined ? "" : `; retry after ${seconds} s`;
		return new RateLimitError(`The gateway is rate limiting requests (HTTP 429)${wait}.`, seconds, where);
	}
	const success = status >= 200 && status < 300;
	// On a create, an unreadable 2xx or 5xx response may follow a processed request (a 4xx one was refused).
	const mayBeProcessed = call.kind === "create" && (success || status >= 500);
	if (mayBeProcessed && isProxyStatus(status) && body?.status !== "error") {
		const cause = new InvalidResponseError(`HTTP ${status} without a gateway response.`, excerpt(response), where);
		return new OutcomeUnknownError(call.what, call.ids, { ...where, cause });
	}
	if (!body) {
		const message = `The gateway's response (HTTP ${status}) is not a JSON object.`;
		return unreadable(response, call, mayBeProcessed, message, "a JSON object");
	}
	if (status === 422 && Array.isArray(body.errors)) {
		const refusedFields = say("The gateway refused the request's fields.");
		const fields = fieldErrors(body.errors, secrets);
		quoted.push(...fields.flatMap((field) => field.messages));
		return new GatewayValidationError(refusedFields, fields, where);
	}
	const noProvider = "transactionId" in body && body.transactionId === null && !("data" in body);
	if (status === 422 && call.endpoint === "card" && noProvider) {
		return new NoS2SProviderError(`${say("No S2S provider is configured.")} ${NO_S2S_ADVICE}`, where);
	}
	const saysError = body.status === "error";
	if (!saysError && success) return undefined;
	if (saysError && call.endpoint === "checkout") {
		return new CheckoutError(`The checkout session was not created: ${say("no message")}`, where);
	}
	if (status === 422) return new GatewayValidationError(say("The gateway refused the request."), [], where);
	if (saysError) {
		const data = isPlainObject(body.data) ? body.data : undefined;
		const transactionId = bodyId(data?.transactionId, secrets) ?? call.ids.transactionId;
		return new ProcessingError(`The gateway could not process the request: ${say("no message")}`, transactionId, where);
	}
	const strange = `The gateway responded HTTP ${status} with a body that is not a gateway response.`;
	return unreadable(response, call, mayBeProcessed, strange, "a gateway response");
}

/** A response that cannot be read: on a create that may have been processed, an unknown outcome. */
function unreadable(response: ReadResponse, call: CallContext, mayBeProcessed: boolean, message: string, notA: string) {
	const { status } = response;
	const error = new InvalidResponseError(message, excerpt(response), { status, path: call.path });
	const circumstance = `its response (HTTP ${status}) arrived but could not be read (not ${notA})`;
	return mayBeProcessed ? unknownOutcome(call, error, circumstance) : error;
}

/** A failure that arrived signed (a checkout's 2.1 payload saying `status: "error"`) is still a failure. */
export function errorInSignedFields(
	fields: Record<string, unknown>,
	response: ReadResponse,
	call: CallContext,
): GatewayError | undefined {
	if (call.endpoint !== "checkout" || fields.status !== "error") return undefined;
	const said = typeof fields.message === "string" ? redactText(fields.message, response.secrets) : undefined;
	const error = new CheckoutError(`The checkout session was not created: ${said ?? "no message"}`, {
		status: response.status,
		path: call.path,
	});
	return quotesGateway(error, said === undefined ? [] : [said]);
}
