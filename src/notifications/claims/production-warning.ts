import { isMemoryStore } from "./memory-store.js";
import type { NotificationStore } from "./store.js";

interface RuntimeProcess {
	env?: Record<string, string | undefined>;
	emitWarning?: (message: string, options: { type: string; code: string }) => void;
}

/** The one warning the package prints itself, once per process. */
const MEMORY_STORE_WARNING =
	"The IPN handler uses the in-memory store while NODE_ENV is production. It forgets processed events on " +
	"restart (and past its ttlMs and maxEntries), and is not shared between processes or instances: an IPN " +
	"delivered again then runs your callback again. Pass createRedisStore or createPostgresStore as `store`.";

let warned = false;

/**
 * Warns once, through `process.emitWarning` (or `console.warn` where there is none), when a handler starts
 * on the memory store in a production-looking environment (`NODE_ENV=production`).
 */
export function warnIfMemoryStoreInProduction(store: NotificationStore): void {
	if (warned || !isMemoryStore(store)) return;
	const runtime = (globalThis as { process?: RuntimeProcess }).process;
	if (runtime?.env?.NODE_ENV !== "production") return;
	warned = true;
	if (typeof runtime.emitWarning === "function") {
		runtime.emitWarning(MEMORY_STORE_WARNING, {
			type: "MerchantGatewayWarning",
			code: "MERCHANT_GATEWAY_MEMORY_STORE",
		});
	} else {
		console.warn(`merchant-gateway: ${MEMORY_STORE_WARNING}`);
	}
}
