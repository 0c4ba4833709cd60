/**
 * The SDK's version, for the User-Agent and telemetry's instrumentation scope. A plain constant so that
 * nothing reads package.json at runtime; `test/client/options.test.ts` keeps it equal to package.json's
 * `version`.
 */
export const SDK_VERSION = "0.1.0";

/** `merchant-gateway/<version> node/<version>` (the runtime part is left out where there is no `process`). */
export function userAgent(): string {
	const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
	return node ? `merchant-gateway/${SDK_VERSION} node/${node}` : `merchant-gateway/${SDK_VERSION}`;
}
