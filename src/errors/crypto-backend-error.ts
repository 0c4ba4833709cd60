import { errorKind, GatewayError } from "./gateway-error.js";

/** The chosen crypto backend is not available in this runtime, or not loaded yet. */
export class CryptoBackendError extends GatewayError {
	static override readonly [errorKind] = "CryptoBackendError";
}
