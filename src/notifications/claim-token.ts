/**
 * Claim tokens: unique across processes (a random prefix per process) and within
 * one (a counter), so a store can tell one claim from another. They guard against
 * a mix-up, not an attacker (they never leave the merchant's side), and cost a
 * string concatenation per claim.
 */
let prefix: string | undefined;
let counter = 0;

export function newClaimToken(): string {
	if (prefix === undefined) {
		const bytes = globalThis.crypto.getRandomValues(new Uint8Array(12));
		prefix = `${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}.`;
	}
	counter++;
	return prefix + counter.toString(36);
}
