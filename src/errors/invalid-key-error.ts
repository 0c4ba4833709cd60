import { errorKind } from "./gateway-error.js";
import { InvalidInputError } from "./invalid-input-error.js";

/** Why a key was refused. */
export type InvalidKeyReason =
	| "unrecognized_format"
	| "not_rsa"
	| "too_small"
	| "too_large"
	| "passphrase_required"
	| "wrong_passphrase"
	| "wrong_key_type";

/**
 * A key could not be loaded or is not allowed. The message names the rule that
 * failed and never contains key material.
 */
export class InvalidKeyError extends InvalidInputError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "InvalidKeyError";
	/** The rule the key broke. */
	readonly reason: InvalidKeyReason;

	constructor(reason: InvalidKeyReason, message: string) {
		super(message);
		this.reason = reason;
	}
}
