import { ConnectionError } from "../errors/connection-error.js";
import { InvalidResponseError } from "../errors/invalid-response-error.js";
import { OutcomeUnknownError } from "../errors/outcome-unknown-error.js";
import { ResponseTooLargeError } from "../errors/response-too-large-error.js";
import { SignatureVerificationError } from "../errors/signature-verification-error.js";
import { TimeoutError } from "../errors/timeout-error.js";
import { type KnownSecrets, redactText } from "../internal/redact.js";
import type { SignVersion } from "../signing/seal.js";
import { safeCause } from "../transport/errors.js";
import type { NoResponse } from "../transport/http.js";
import { describeFailure } from "../transport/network-failure.js";
import { type CallContext, unknownOutcome } from "./response-errors.js";
import { checkSignVersion, settingsToCheck } from "./settings-to-check.js";

/**
 * What a call ends in when no response came back. A query changed nothing: its connection error,
 * timeout or the caller's abort is thrown as is. A create that may have been sent may have been
 * processed, so its outcome is unknown; only a create that certainly was not sent fails plainly.
 */
export function noResponseError(
	call: CallContext,
	none: NoResponse,
	timeoutMs: number,
	secrets: KnownSecrets,
): unknown {
	const { path } = call;
	if (none.failure === "aborted" && call.kind === "query") return none.cause;
	const base =
		none.failure === "timed_out"
			? new TimeoutError(`No response from the gateway within ${timeoutMs} ms.`, { path })
			: none.failure === "aborted"
				? safeCause(none.cause, secrets)
				: new ConnectionError(`Could not reach the gateway: ${redactText(describeFailure(none.cause), secrets)}.`, {
						path,
						cause: safeCause(none.cause, secrets),
					});
	if (call.kind === "query" || none.failure === "not_sent") return base;
	return new OutcomeUnknownError(call.what, call.ids, { path, cause: base });
}

/** A response past `maxResponseBytes`: not read. On a create, the request may have been processed. */
export function tooLargeError(call: CallContext, status: number, limitBytes: number): Error {
	const tooLarge = new ResponseTooLargeError(limitBytes, { status, path: call.path });
	if (call.kind === "query") return tooLarge;
	return unknownOutcome(call, tooLarge, "its response was larger than maxResponseBytes, so it was not read");
}

/**
 * A create whose response arrived but could not be verified or read may have been processed (and a
 * card charged): an unknown outcome to reconcile, never a plain failure that invites a retry. The
 * message names the setting to check.
 */
export function unverifiedCreate(call: CallContext, signVersion: SignVersion, error: unknown): unknown {
	const arrived = "its response arrived";
	if (error instanceof SignatureVerificationError) {
		const unsignedAdvice = "turn requireSignedResponses off only for a gateway that does not sign creation responses";
		const check = settingsToCheck(error.reason, signVersion);
		const circumstances: Record<SignatureVerificationError["reason"], string> = {
			version_not_accepted: `${arrived} signed in another signing version: ${check}`,
			mismatch: `${arrived} but its signature matches no configured key: ${check}`,
			malformed_signature: `${arrived} with a malformed signature: ${check}`,
			missing_signature: `${arrived} unsigned: ${check}; ${unsignedAdvice}`,
		};
		const fallback = `${arrived} but could not be verified: ${settingsToCheck("malformed_signature", signVersion)}`;
		return unknownOutcome(call, error, circumstances[error.reason] ?? fallback);
	}
	if (error instanceof InvalidResponseError) {
		const detail = error.message.replace(/\.$/, "");
		return unknownOutcome(
			call,
			error,
			`${arrived} but could not be read (${detail}): ${checkSignVersion(signVersion)}`,
		);
	}
	return error;
}
