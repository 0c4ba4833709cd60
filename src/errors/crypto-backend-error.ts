import { errorKind, GatewayError } from "./gateway-error.js";

/** The chosen crypto backend is not available in this runtime, or not loaded yet. */
export class CryptoBackendError extends GatewayError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "CryptoBackendError";
}
