import type { SignedStringForm } from "../signing/canonical.js";
import type { PrivateKey, PublicKey } from "../signing/keys.js";
import type { SignVersion } from "../signing/seal.js";
import type { Transport } from "../transport/http.js";
import type { CallingClient, Observer } from "./call-watch.js";

/** @internal What every resource needs from the client (its options as they document). Held privately, never shown. */
export interface ClientContext {
	readonly baseUrl: string;
	readonly merchantId: string;
	readonly alwaysSendMerchantId: boolean;
	readonly privateKey: PrivateKey;
	readonly publicKeys: readonly PublicKey[];
	readonly signVersion: SignVersion;
	readonly signedString: SignedStringForm | undefined;
	readonly requireSignedResponses: boolean;
	readonly allowLoopbackHttp: boolean;
	readonly transport: Transport;
	readonly observer: Observer;
	/** Where the calls go and how they are signed, as their watches are told. */
	readonly caller: CallingClient;
}
