import { ENDPOINTS, type EndpointName, type ParamsOf, type ResponseDataOf } from "../endpoints.js";
import type { InvalidResponseError } from "../errors/invalid-response-error.js";
import { RequestValidationError } from "../errors/request-validation-error.js";
import { toFieldIssues } from "../internal/field-issues.js";
import { parseJsonObject } from "../internal/plain-object.js";
import { KnownSecrets } from "../internal/redact.js";
import { findDrift } from "../schemas/drift.js";
import { firstReports } from "../schemas/drift-reports.js";
import { sealMessage } from "../signing/seal.js";
import type { RequestOptions } from "../transport/http.js";
import { failureOutcome, successOutcome, watchCall } from "./call-watch.js";
import type { ClientContext } from "./context.js";
import { openResponse } from "./open-response.js";
import { noResponseError, tooLargeError, unverifiedCreate } from "./outcome.js";
import {
	type CallContext,
	errorForResponse,
	errorInSignedFields,
	offSchema,
	type ReadResponse,
} from "./response-errors.js";
import { validate } from "./validate.js";

/** A verified success response, as a resource method maps it to its public result. */
export interface Verified<N extends EndpointName> {
	/** The signed fields, checked against the endpoint's response schema. */
	data: ResponseDataOf<N>;
	/** A wrapped response's unsigned `status` and `message` (a flat response's own fields). */
	wrapper: { status: unknown; message: unknown };
	/** The request's card number and security code, to remove from unsigned text handed to the merchant. */
	secrets: KnownSecrets;
	/** An error for a response whose signed content is not what the call asked for. */
	unexpected(detail: string): InvalidResponseError;
}

/**
 * One call to the gateway, as the endpoint table describes it: the parameters validated, the message
 * built (with `merchantId` as the endpoint wants it), sealed in the account's version and sent; error
 * responses mapped to typed errors; the success response verified, checked against its schema and
 * handed to `read`. A create that may have been processed without a verified response to show for it
 * ends in `OutcomeUnknownError`. Each step is told to the call's watch (call-watch.ts: the client's hooks
 * and logger, and any instrumentation), and so is drift in the verified response (a status or field the SDK
 * does not know), once per kind and process.
 */
export async function callEndpoint<N extends EndpointName, T>(
	ctx: ClientContext,
	name: N,
	params: ParamsOf<N>,
	options: RequestOptions | undefined,
	read: (verified: Verified<N>) => T,
): Promise<T> {
	const endpoint = ENDPOINTS[name];
	const { path } = endpoint;
	const watch = watchCall(ctx.caller, ctx.observer, endpoint);
	try {
		checkRequestOptions(options, path);
		const data = validate(endpoint.params(ctx), params, path) as Record<string, unknown>;
		const withMerchantId = endpoint.merchantId === "required" || ctx.alwaysSendMerchantId;
		const fields = withMerchantId ? { merchantId: ctx.merchantId, ...data } : data;
		const call: CallContext = {
			endpoint: name,
			path,
			kind: endpoint.kind,
			what: endpoint.what,
			envelope: endpoint.envelope,
			ids: { orderRef: stringOr(fields.orderRef), transactionId: stringOr(fields.transactionId) },
		};
		const { signVersion, signedString, privateKey } = ctx;
		const sealed = sealMessage(fields, { privateKey, signVersion, signedString });
		// Aborted before anything was sent: nothing happened, whatever the endpoint.
		if (options?.signal?.aborted) throw options.signal.reason;
		const secrets = new KnownSecrets(fields);
		watch.sending(fields);
		const received = await watch.during(() =>
			ctx.transport.send({
				path,
				body: JSON.stringify(sealed),
				kind: endpoint.kind,
				fields,
				signVersion,
				signal: options?.signal,
				timeoutMs: options?.timeoutMs,
				watch,
			}),
		);
		watch.exchanged("failure" in received ? undefined : received.status, received.attempts);
		if ("failure" in received) {
			throw noResponseError(call, received, options?.timeoutMs ?? ctx.transport.config.timeoutMs, secrets);
		}
		if (received.text === undefined) throw tooLargeError(call, received.status, ctx.transport.config.maxResponseBytes);
		const response: ReadResponse = { ...received, text: received.text, secrets };
		const body = parseJsonObject(response.text);
		const failure = errorForResponse(response, body, call);
		if (failure) throw failure;
		try {
			const opened = openResponse(ctx, call, body as Record<string, unknown>, response);
			const refused = errorInSignedFields(opened.fields, response, call);
			if (refused) throw refused;
			const unexpected = (detail: string) => offSchema(response, path, detail);
			const parsed = endpoint.response.safeParse(opened.fields);
			if (!parsed.success) throw unexpected(describeIssues(parsed.error));
			const data = parsed.data as ResponseDataOf<N>;
			const drifts = findDrift(endpoint.response.get(), opened.fields);
			if (drifts.length > 0) for (const report of firstReports(endpoint.operation, drifts)) watch.drift(report);
			const result = read({ data, wrapper: opened.wrapper, secrets, unexpected });
			watch.succeeded(result, successOutcome(endpoint, result));
			return result;
		} catch (error) {
			throw call.kind === "create" ? unverifiedCreate(call, signVersion, error) : error;
		}
	} catch (error) {
		watch.failed(error, failureOutcome(error, options?.signal?.aborted === true));
		throw error;
	}
}

const stringOr = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Per-call options are checked like parameters: before anything is sent. */
function checkRequestOptions(options: RequestOptions | undefined, path: string): void {
	if (options === undefined) return;
	const issues = [];
	const { timeoutMs, signal } = options;
	if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 2_147_483_647)) {
		issues.push({ field: "options.timeoutMs", message: "must be an integer from 1 to 2147483647" });
	}
	if (signal !== undefined && !(signal instanceof AbortSignal)) {
		issues.push({ field: "options.signal", message: "must be an AbortSignal" });
	}
	if (issues.length > 0) throw new RequestValidationError(issues, path);
}

/** The first few zod issues of an off-schema response, as `field rule` text (never values). */
function describeIssues(error: Parameters<typeof toFieldIssues>[0]): string {
	return toFieldIssues(error)
		.slice(0, 5)
		.map((issue) => `${issue.field || "(body)"} ${issue.message}`)
		.join("; ");
}
