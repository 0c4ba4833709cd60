import { errorKind } from "./gateway-error.js";
import { GatewayRefusalError } from "./gateway-refusal-error.js";

/**
 * The merchant account has only hosted-page processors, so S2S card charges are
 * impossible: ask for an S2S-capable processor, or use checkout instead.
 */
export class NoS2SProviderError extends GatewayRefusalError {
	/** @internal The name `instanceof` recognises across builds. */
	static override readonly [errorKind] = "NoS2SProviderError";
}
