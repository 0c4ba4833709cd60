import type { SandboxServerOptions } from "../../../src/testing.js";
import { keys } from "../../support/vectors.js";

/** The model's two accounts: refunds go out at once on one, wait for approval on the other. */
export const MODEL_MERCHANTS = { auto: "shop-auto", manual: "shop-manual" } as const;
export const MODEL_CONTROL_TOKEN = "model-test-control-token";
export const MODEL_START = "2030-01-01T10:00:00Z";

/** The same sandbox in this process and in a child: frozen clock, vector keys, both accounts. */
export function modelServerOptions(stateDir: string): SandboxServerOptions {
	return {
		stateDir,
		now: MODEL_START,
		controlToken: MODEL_CONTROL_TOKEN,
		gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
		merchants: [
			{ merchantId: MODEL_MERCHANTS.auto, publicKey: keys.merchantPublic },
			{ merchantId: MODEL_MERCHANTS.manual, publicKey: keys.merchantPublic, refundApproval: "manual" },
		],
	};
}
