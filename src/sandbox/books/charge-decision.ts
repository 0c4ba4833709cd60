import type { Provider, ProviderAttempt, StoredCard } from "./records.js";
import { cardBrand, testCardBehaviour } from "./test-cards.js";

/** Card data as the buyer or the merchant server sent it. Only masked parts are ever stored. */
export interface CardInput {
	number: string;
	month: string;
	year: string;
	name: string | null;
}

/** What the providers decided, before any state changes. */
export type ChargeDecision =
	| { kind: "approved"; provider: Provider; attempts: ProviderAttempt[] }
	| { kind: "declined"; httpStatus: 400 | 500; message: string; provider: Provider; attempts: ProviderAttempt[] }
	| { kind: "three_ds"; provider: Provider; attempts: ProviderAttempt[] }
	| { kind: "pending"; eventually: "approved" | "declined"; provider: Provider; attempts: ProviderAttempt[] };

export function storedCard(card: CardInput): StoredCard {
	return {
		name: card.name,
		firstSixDigits: card.number.slice(0, 6),
		lastFourDigits: card.number.slice(-4),
		expiryMonth: card.month,
		expiryYear: card.year,
		type: cardBrand(card.number),
	};
}

/** True when the card's last valid month lies before `now` (UTC). */
export function isExpired(card: CardInput, now: Date): boolean {
	const year = 2000 + Number(card.year);
	const month = Number(card.month);
	return year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1);
}

/**
 * Decides a card charge from the test card table. `providers` are the ones that
 * may take it, in cascade order (never empty: the caller handles "none").
 */
export function decideCharge(
	card: CardInput,
	providers: readonly Provider[],
	autoCascade: boolean,
	now: Date,
): ChargeDecision {
	const [first, second] = providers;
	if (!first) throw new Error("decideCharge needs at least one provider");
	const decline = (message: string, httpStatus: 400 | 500 = 400): ChargeDecision => ({
		kind: "declined",
		httpStatus,
		message,
		provider: first,
		attempts: [{ provider: first.name, outcome: "declined", message }],
	});
	const approve = (): ProviderAttempt[] => [{ provider: first.name, outcome: "approved", message: null }];
	if (isExpired(card, now)) return decline("Expired card.");
	switch (testCardBehaviour(card.number)) {
		case "approved":
			return { kind: "approved", provider: first, attempts: approve() };
		case "declined":
			return decline("Card declined by the issuer.");
		case "insufficient_funds":
			return decline("Insufficient funds.");
		case "provider_error":
			return decline("The payment provider failed to process the charge.", 500);
		case "three_ds":
			return { kind: "three_ds", provider: first, attempts: [] };
		case "pending_then_approved":
			return { kind: "pending", eventually: "approved", provider: first, attempts: [] };
		case "pending_then_declined":
			return { kind: "pending", eventually: "declined", provider: first, attempts: [] };
		case "cascade": {
			const declined: ProviderAttempt = {
				provider: first.name,
				outcome: "declined",
				message: "Declined by the first provider.",
			};
			if (!autoCascade || !second) return decline("Card declined by the issuer.");
			return {
				kind: "approved",
				provider: second,
				attempts: [declined, { provider: second.name, outcome: "approved", message: null }],
			};
		}
	}
}
