import { InvalidResponseError } from "../errors/invalid-response-error.js";
import { MalformedMessageError } from "../errors/malformed-message-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { redactText } from "../internal/redact.js";
import { openVerified } from "../signing/open.js";
import type { ClientContext } from "./context.js";
import { type CallContext, excerpt, offSchema, type ReadResponse } from "./response-errors.js";
import { settingsToCheck } from "./settings-to-check.js";

/** A success response, verified (or, where allowed, unsigned): its signed fields and what is said around them. */
export interface OpenedResponse {
	/** The signed fields: a flat response's own, a wrapped response's `data`. */
	fields: Record<string, unknown>;
	/** A wrapped response's `status` and `message`, which the gateway does not sign (a flat response's own fields). */
	wrapper: { status: unknown; message: unknown };
}

function hasSignature(body: Record<string, unknown>): boolean {
	if (typeof body.payload === "string" || body.signature !== undefined) return true;
	const data = body.data;
	return typeof data === "object" && data !== null && (data as Record<string, unknown>).signature !== undefined;
}

/**
 * Verifies a success response with the gateway's keys, in the account's signing version only. Query
 * responses must be signed; creation responses too, unless `requireSignedResponses` is off.
 */
export function openResponse(
	ctx: ClientContext,
	call: CallContext,
	body: Record<string, unknown>,
	response: ReadResponse,
): OpenedResponse {
	const where = { status: response.status, path: call.path };
	if (!hasSignature(body)) {
		if (call.kind === "query" || ctx.requireSignedResponses) {
			const message = "The gateway's response is not signed, so it cannot be trusted.";
			throw new SignatureVerificationError("missing_signature", message, where);
		}
		if (call.envelope === "flat") return { fields: body, wrapper: { status: body.status, message: body.message } };
		const data = body.data;
		if (typeof data !== "object" || data === null || Array.isArray(data)) {
			throw offSchema(response, call.path, "data is not an object");
		}
		return { fields: data as Record<string, unknown>, wrapper: { status: body.status, message: body.message } };
	}
	try {
		// The text, not the parsed body: 2.0 signs nested objects in the gateway's order and numbers as written.
		const opened = openVerified(response.text, {
			publicKey: ctx.publicKeys,
			acceptVersions: [ctx.signVersion],
			signedString: ctx.signedString,
		});
		const { fields } = opened;
		return { fields, wrapper: opened.wrapper ?? { status: fields.status, message: fields.message } };
	} catch (error) {
		if (error instanceof SignatureVerificationError) {
			const message = redactText(error.message, response.secrets);
			// A create's OutcomeUnknownError names the settings to check; a query's own error does.
			const hinted =
				call.kind === "query"
					? `${message.replace(/\.$/, "")}: ${settingsToCheck(error.reason, ctx.signVersion)}.`
					: message;
			throw new SignatureVerificationError(error.reason, hinted, where);
		}
		if (error instanceof MalformedMessageError) {
			const malformed = `The gateway's signed response is malformed: ${redactText(error.message, response.secrets)}`;
			throw new InvalidResponseError(malformed, excerpt(response), where);
		}
		throw error;
	}
}
