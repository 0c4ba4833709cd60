// The steps around a callback that both the IPN handler and the reconciler take,
// so an event claimed either way is finished the same way.
import { LeaseExpiredError } from "../errors/lease-expired-error.js";
import { NotificationStoreError } from "../errors/notification-store-error.js";
import type { NotificationStore } from "./store.js";

let prefix: string | undefined;
let counter = 0;

/**
 * A claim token: unique across processes (a random prefix per process) and within
 * one (a counter), so a store can tell one claim from another. Tokens guard against a
 * mix-up, not an attacker (they never leave the merchant's side), and cost a string
 * concatenation per claim.
 */
export function newClaimToken(): string {
	if (prefix === undefined) {
		const bytes = globalThis.crypto.getRandomValues(new Uint8Array(12));
		prefix = `${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}.`;
	}
	counter++;
	return prefix + counter.toString(36);
}

/**
 * After the callback resolved: marks the event done. Never throws, as the work is
 * done and must be acknowledged; returns what the caller should report instead: the
 * store's error, or a LeaseExpiredError when the claim had been lost. Undefined when all went well.
 */
export async function confirmClaim(store: NotificationStore, eventId: string, token: string, leaseMs: number) {
	try {
		const confirmed = store.confirm(eventId, token);
		const result: unknown = typeof confirmed === "object" ? await confirmed : confirmed;
		return result === "lease_lost" ? new LeaseExpiredError(eventId, leaseMs) : undefined;
	} catch (error) {
		return error ?? new NotificationStoreError(`The store's confirm of ${eventId} failed.`);
	}
}

/**
 * After the callback threw: forgets the claim so the next delivery runs the callback
 * again. Never throws; returns the store's error to report (the lease then ends by itself).
 */
export async function releaseClaim(store: NotificationStore, eventId: string, token: string): Promise<unknown> {
	try {
		await store.release(eventId, token);
		return undefined;
	} catch (error) {
		return error ?? new NotificationStoreError(`The store's release of ${eventId} failed.`);
	}
}
