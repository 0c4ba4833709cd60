import { monotonicFactory } from "ulid";
import { fromMinorUnits } from "../../money/amount.js";

/** How the gateway writes ids, numbers and dates (D12), stamped with the sandbox clock. */
export class IdSource {
	readonly #ulid = monotonicFactory();

	/** A ULID in lowercase, as the gateway writes them (`01k0svjxa7rxj0wwz0cqb85r6a`). */
	ulid(now: Date): string {
		return this.#ulid(now.getTime()).toLowerCase();
	}

	/** A transaction or refund number, `2507-1753214448`: year and month (UTC), a hyphen, Unix seconds. */
	readableNumber(now: Date): string {
		const yymm = now.toISOString().slice(2, 7).replace("-", "");
		return `${yymm}-${Math.floor(now.getTime() / 1000)}`;
	}
}

/** ISO 8601 to the second with an explicit offset, as the gateway writes dates: `2023-12-16T02:13:37+00:00`. */
export function gatewayTime(date: Date): string {
	return `${date.toISOString().slice(0, 19)}+00:00`;
}

/** An amount in minor units as people read it: `12.50 EUR`. */
export function formatMoney(minor: number, currency: string): string {
	return `${fromMinorUnits(minor).toFixed(2)} ${currency}`;
}

/** 128 random bits as hex: the secret part of hosted-page links. */
export function randomToken(): string {
	const bytes = new Uint8Array(16);
	crypto.getRandomValues(bytes);
	return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
