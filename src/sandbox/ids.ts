import { monotonicFactory } from "ulid";

/** ULIDs stamped with the sandbox clock, plus readable sequence numbers. */
export class IdSource {
	readonly #ulid = monotonicFactory();
	#transactions = 0;
	#refunds = 0;

	ulid(now: Date): string {
		return this.#ulid(now.getTime());
	}

	/** `SBX-20261122-000001`: date of creation and a sequence number. */
	transactionNumber(now: Date): string {
		return `SBX-${day(now)}-${String(++this.#transactions).padStart(6, "0")}`;
	}

	/** `RFD-20261122-000001`. */
	refundNumber(now: Date): string {
		return `RFD-${day(now)}-${String(++this.#refunds).padStart(6, "0")}`;
	}
}

function day(date: Date): string {
	return date.toISOString().slice(0, 10).replaceAll("-", "");
}

/** 128 random bits as hex: the secret part of hosted-page links. */
export function randomToken(): string {
	const bytes = new Uint8Array(16);
	crypto.getRandomValues(bytes);
	return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
