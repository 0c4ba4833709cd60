import type { SignedStringForm } from "../signing/canonical.js";
import type { PrivateKey, PublicKey } from "../signing/keys.js";
import type { SignVersion } from "../signing/seal.js";
import type { Transport } from "../transport/http.js";
import type { CallingClient, Observer } from "./call-watch.js";

/** @internal What every resource needs from the client. Held privately, never shown. */
export interface ClientContext {
	readonly baseUrl: string;
	readonly merchantId: string;
	/** Queries and refunds carry `merchantId` only when this is on. */
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
	/** Where the calls go and how they are signed, as their watches are told. */
	readonly caller: CallingClient;
}
