import type { SignatureFailureReason } from "../errors/signature-verification-error.js";
import type { SignVersion } from "../signing/seal.js";

/** The signing-version setting to check, with the value this client has. */
export function checkSignVersion(signVersion: SignVersion): string {
	return `check signVersion ("${signVersion}" here) against the account's setting`;
}

/**
 * The client settings to check when a response fails verification, by the reason it failed: the one wording
 * for queries (in their `SignatureVerificationError`) and creates (in their `OutcomeUnknownError`).
 */
export function settingsToCheck(reason: SignatureFailureReason, signVersion: SignVersion): string {
	const version = `signVersion ("${signVersion}" here)`;
	switch (reason) {
		case "version_not_accepted":
			return checkSignVersion(signVersion);
		case "mismatch":
			return `check gatewayPublicKey (and ${version})`;
		case "malformed_signature":
			return `check ${version} and gatewayPublicKey`;
		case "missing_signature":
			return `check ${version}`;
	}
}
