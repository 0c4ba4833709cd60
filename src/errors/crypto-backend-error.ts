import { errorKind } from "./gateway-error.js";
import { InvalidInputError } from "./invalid-input-error.js";

/** The chosen crypto backend is not available in this runtime, or not loaded yet. */
export class CryptoBackendError extends InvalidInputError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "CryptoBackendError";
}
