import { SDK_VERSION } from "../internal/version.js";

export { SDK_VERSION };

/** `merchant-gateway/<version> node/<version>` (the runtime part is left out where there is no `process`). */
export function userAgent(): string {
	const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
	return node ? `merchant-gateway/${SDK_VERSION} node/${node}` : `merchant-gateway/${SDK_VERSION}`;
}
