import { GatewayError } from "../errors/gateway-error.js";
import { InvalidResponseError } from "../errors/invalid-response-error.js";
import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { RequestValidationError } from "../errors/request-validation-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { redactText } from "../internal/redact.js";
import { toFieldIssues } from "../schemas/requests.js";
import type { SignedStringForm } from "../signing/canonical.js";
import type { PrivateKey, PublicKey } from "../signing/keys.js";
import { openVerified } from "../signing/open.js";
import { type SignVersion, sealMessage } from "../signing/seal.js";
import type { GatewayAnswer, RequestOptions, Transport } from "../transport/http.js";
import type { Observer } from "../transport/observer.js";
import { type AnswerContext, errorForAnswer, excerpt, parseBody, unknownOutcome } from "./answer.js";

/** What every resource needs from the client. Held privately, never shown. */
export interface ClientContext {
	readonly baseUrl: string;
	readonly merchantId: string;
	/** D11: queries and refunds carry `merchantId` only when this is on. */
	readonly alwaysSendMerchantId: boolean;
	readonly privateKey: PrivateKey;
	readonly publicKeys: readonly PublicKey[];
	readonly signVersion: SignVersion;
	/** The 2.0 signed-string form; undefined means the gateway's reference form. */
	readonly signedString: SignedStringForm | undefined;
	readonly requireSignedResponses: boolean;
	readonly allowLoopbackHttp: boolean;
	readonly transport: Transport;
	readonly observer: Observer;
}

/** A verified (or, where allowed, unsigned) answer: the signed fields and the wrapper around them. */
export interface OpenedAnswer {
	fields: Record<string, unknown>;
	wrapper: { status: unknown; message: unknown } | undefined;
	signed: boolean;
}

export interface CallSpec extends AnswerContext {
	fields: Record<string, unknown>;
	options: RequestOptions | undefined;
	/** Query answers are always verified; creation answers when signed, and must be unless `requireSignedResponses` is off (D6). */
	alwaysVerify: boolean;
}

function hasSignature(body: Record<string, unknown>): boolean {
	if (typeof body.payload === "string" || body.signature !== undefined) return true;
	const data = body.data;
	return typeof data === "object" && data !== null && (data as Record<string, unknown>).signature !== undefined;
}

/** Verifies an answer per D6; unsigned creation answers pass only when `requireSignedResponses` is off. */
export function openAnswer(
	ctx: ClientContext,
	body: Record<string, unknown>,
	answer: GatewayAnswer,
	spec: CallSpec,
): OpenedAnswer {
	const context = { status: answer.status, path: spec.path };
	if (!hasSignature(body)) {
		if (spec.alwaysVerify || ctx.requireSignedResponses) {
			throw new SignatureVerificationError(
				"missing_signature",
				"The gateway's answer is not signed, so it cannot be trusted.",
				context,
			);
		}
		const wrapped = typeof body.data === "object" && body.data !== null && ("status" in body || "message" in body);
		return wrapped
			? {
					fields: body.data as Record<string, unknown>,
					wrapper: { status: body.status, message: body.message },
					signed: false,
				}
			: { fields: body, wrapper: undefined, signed: false };
	}
	try {
		// The text, not the parsed body: 2.0 signs nested objects in the gateway's order and numbers as written.
		const opened = openVerified(answer.text, {
			publicKey: ctx.publicKeys,
			acceptVersions: [ctx.signVersion],
			signedString: ctx.signedString,
		});
		return { fields: opened.fields, wrapper: opened.wrapper, signed: true };
	} catch (error) {
		if (error instanceof SignatureVerificationError) {
			throw new SignatureVerificationError(error.reason, redactText(error.message, answer.secrets), context);
		}
		if (error instanceof MalformedMessageError) {
			const malformed = `The gateway's signed answer is malformed: ${redactText(error.message, answer.secrets)}`;
			throw new InvalidResponseError(malformed, excerpt(answer), context);
		}
		throw error;
	}
}

/** Seals the fields in the account's version, sends them, maps error answers, and opens the success answer. */
export async function call<T>(
	ctx: ClientContext,
	spec: CallSpec,
	read: (opened: OpenedAnswer, answer: GatewayAnswer) => T,
): Promise<T> {
	try {
		checkRequestOptions(spec.options, spec.path);
		const sealed = sealMessage(spec.fields, {
			privateKey: ctx.privateKey,
			signVersion: ctx.signVersion,
			signedString: ctx.signedString,
		});
		const answer = await ctx.transport.send({
			path: spec.path,
			body: JSON.stringify(sealed),
			kind: spec.kind,
			fields: spec.fields,
			signVersion: ctx.signVersion,
			ids: spec.ids,
			what: spec.what,
			signal: spec.options?.signal,
			timeoutMs: spec.options?.timeoutMs,
		});
		const body = parseBody(answer.text);
		const failure = errorForAnswer(answer, body, spec);
		if (failure) throw failure;
		try {
			return read(openAnswer(ctx, body as Record<string, unknown>, answer, spec), answer);
		} catch (error) {
			throw spec.kind === "create" ? unverifiedCreate(ctx, spec, error) : error;
		}
	} catch (error) {
		if (error instanceof GatewayError || error instanceof Error)
			ctx.observer.error({ method: "POST", path: spec.path, error });
		throw error;
	}
}

/**
 * A create whose answer arrived but could not be verified or read may have
 * been processed (and a card charged): an unknown outcome to reconcile, never a
 * plain failure that invites a retry. The message names the setting to check.
 */
function unverifiedCreate(ctx: ClientContext, spec: CallSpec, error: unknown): unknown {
	const signVersion = `signVersion ("${ctx.signVersion}" here)`;
	const checkVersion = `check ${signVersion} against the account's setting`;
	const arrived = "its answer arrived";
	if (error instanceof SignatureVerificationError) {
		const unsignedAdvice = "turn requireSignedResponses off only for a gateway that does not sign creation answers";
		const circumstances: Record<SignatureVerificationError["reason"], string> = {
			version_not_accepted: `${arrived} signed in another signing version: ${checkVersion}`,
			mismatch: `${arrived} but its signature matches no configured key: check gatewayPublicKey (and ${signVersion})`,
			malformed_signature: `${arrived} with a malformed signature: check ${signVersion} and gatewayPublicKey`,
			missing_signature: `${arrived} unsigned: check ${signVersion}; ${unsignedAdvice}`,
		};
		const fallback = `${arrived} but could not be verified: check ${signVersion} and gatewayPublicKey`;
		return unknownOutcome(spec, error, circumstances[error.reason] ?? fallback);
	}
	if (error instanceof InvalidResponseError) {
		const detail = error.message.replace(/\.$/, "");
		return unknownOutcome(spec, error, `${arrived} but could not be read (${detail}): ${checkVersion}`);
	}
	return error;
}

/** Per-call options are checked like parameters: before anything is sent. */
function checkRequestOptions(options: RequestOptions | undefined, path: string): void {
	if (options === undefined) return;
	const issues = [];
	const { timeoutMs, signal } = options;
	if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 2_147_483_647)) {
		issues.push({ field: "options.timeoutMs", message: "must be an integer from 1 to 2147483647" });
	}
	if (signal !== undefined && !(signal instanceof AbortSignal))
		issues.push({ field: "options.signal", message: "must be an AbortSignal" });
	if (issues.length > 0) throw new RequestValidationError(issues, path);
}

/** An off-schema answer: status, path and a redacted excerpt. */
export function offSchema(answer: GatewayAnswer, path: string, detail: string): InvalidResponseError {
	const message = `The gateway's answer does not have the documented shape: ${detail}.`;
	return new InvalidResponseError(message, excerpt(answer), { status: answer.status, path });
}

/** The first few zod issues of an off-schema answer, as `field rule` text (never values). */
export function describeIssues(error: Parameters<typeof toFieldIssues>[0]): string {
	return toFieldIssues(error)
		.slice(0, 5)
		.map((issue) => `${issue.field || "(body)"} ${issue.message}`)
		.join("; ");
}
