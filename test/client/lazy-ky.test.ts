import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { keys } from "../support/vectors.js";

/**
 * Importing the SDK must not load ky: it is imported on the first request only. Nor Node's fetch
 * implementation (undici, loaded when a module first names `fetch`, `Request` or `Response`).
 * Measured in a fresh Node process whose resolve hook records every module
 * resolved from node_modules/ky (the sources run as TypeScript through Node's
 * type stripping; `.js` specifiers are mapped to the `.ts` files).
 */
const script = `
import { registerHooks } from "node:module";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
const loaded = [];
registerHooks({
	resolve(specifier, context, next) {
		if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL) {
			const ts = new URL(specifier.replace(/\\.js$/, ".ts"), context.parentURL);
			const js = new URL(specifier, context.parentURL);
			if (!existsSync(fileURLToPath(js)) && existsSync(fileURLToPath(ts))) return next(ts.href, context);
		}
		const result = next(specifier, context);
		if (result.url.includes("/node_modules/ky/")) loaded.push(result.url);
		return result;
	},
});
const [entry, privateKey, gatewayPublicKey] = process.argv.slice(2);
const fetchLoaded = () => process.moduleLoadList.some((name) => name.includes("undici"));
const sdk = await import(entry);
const afterImport = loaded.length;
const fetchAfterImport = fetchLoaded();
const gateway = new sdk.GatewayClient({
	baseUrl: "http://127.0.0.1:9",
	merchantId: "M",
	privateKey,
	gatewayPublicKey,
	allowLoopbackHttp: true,
	maxRetries: 0,
});
const afterConstruct = loaded.length;
const error = await gateway.transactions.retrieve("01JD5Z8Q4V7M1X2C3B4N5P6R7S").catch((e) => e.name);
console.log(JSON.stringify({ afterImport, fetchAfterImport, afterConstruct, afterRequest: loaded.length, error }));
`;

test("importing the SDK loads neither ky nor Node's fetch, nor does a client; the first request does", () => {
	const dir = mkdtempSync(join(tmpdir(), "lazy-ky-"));
	const file = join(dir, "probe.mjs");
	writeFileSync(file, script);
	const entry = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
	const output = execFileSync(process.execPath, [file, entry, keys.merchantPrivate, keys.gatewayPublic], {
		encoding: "utf8",
		cwd: dir,
	});
	const result = JSON.parse(output.trim().split("\n").pop() as string);
	expect(result).toEqual({
		afterImport: 0,
		fetchAfterImport: false,
		afterConstruct: 0,
		afterRequest: expect.any(Number),
		error: "ConnectionError",
	});
	expect(result.afterRequest).toBeGreaterThan(0);
});
