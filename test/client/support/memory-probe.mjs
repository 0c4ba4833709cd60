// Runs one client call against a hostile response in a fresh process and reports
// the call's error and the process's peak memory above its baseline.
// Usage: node --expose-gc memory-probe.mjs <sdk entry> <baseUrl> <call> <merchant key> <gateway key>
// The SDK runs from its TypeScript sources (Node's type stripping; `.js` specifiers map to `.ts` files).
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

registerHooks({
	resolve(specifier, context, next) {
		if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL) {
			const js = new URL(specifier, context.parentURL);
			const ts = new URL(specifier.replace(/\.js$/, ".ts"), context.parentURL);
			if (!existsSync(fileURLToPath(js)) && existsSync(fileURLToPath(ts))) return next(ts.href, context);
		}
		return next(specifier, context);
	},
});

const MiB = 1024 * 1024;
/** Past this growth the old, unbounded client would take the machine down: stop and report. */
const WATCHDOG_BYTES = 300 * MiB;
const [entry, baseUrl, callName, privateKey, gatewayPublicKey] = process.argv.slice(2);
const sdk = await import(entry);
const gateway = new sdk.GatewayClient({
	baseUrl,
	merchantId: "M-1001",
	privateKey,
	gatewayPublicKey,
	allowLoopbackHttp: true,
	maxRetries: 0,
	timeoutMs: 120_000,
});
const calls = {
	query: () => gateway.transactions.retrieve("01JD5Z8Q4V7M1X2C3B4N5P6R7S"),
	checkout: () =>
		gateway.checkout.create({
			orderRef: "ORD-BIG",
			amount: 10.5,
			currency: "EUR",
			paymentMethod: "checkout",
			callbackUrl: "https://shop.example/pay/callback",
			notificationUrl: "https://shop.example/pay/ipn",
			cancelUrl: "https://shop.example/pay/cancel",
			errorUrl: "https://shop.example/pay/error",
			orderDescription: "Two coffees",
		}),
};
const call = calls[callName];

// Warm-up: one small response through the same path (ky, undici, zlib and the SDK loaded), then the baseline.
await call().catch(() => undefined);
globalThis.gc?.();
const baseline = process.memoryUsage().rss;
const report = (outcome) => {
	const peak = process.resourceUsage().maxRSS * 1024;
	const memory = { baselineMiB: baseline / MiB, peakAboveBaselineMiB: (peak - baseline) / MiB };
	console.log(JSON.stringify({ ...outcome, ...memory }));
	process.exit(0);
};
setInterval(() => {
	if (process.memoryUsage().rss - baseline > WATCHDOG_BYTES) report({ watchdog: "grew past 300 MiB; stopped" });
}, 10).unref();

const error = await call().then(
	() => undefined,
	(e) => e,
);
report({
	error: error?.name,
	cause: error?.cause?.name,
	limitBytes: error?.limitBytes ?? error?.cause?.limitBytes,
	orderRef: error?.orderRef,
	message: error?.message,
});
