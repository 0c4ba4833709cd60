/**
 * Test cards: the card number decides the outcome, on S2S charges and on the
 * hosted page alike. Every number is Luhn-valid. Any other Luhn-valid number
 * behaves like the approved card; a card whose expiry (cardMonth/cardYear) lies
 * before the sandbox clock is declined as expired.
 */

export type TestCardBehaviour =
	| "approved"
	| "declined"
	| "insufficient_funds"
	| "provider_error"
	| "three_ds"
	| "pending_then_approved"
	| "pending_then_declined"
	| "cascade";

export interface TestCard {
	number: string;
	behaviour: TestCardBehaviour;
	/** What happens, in words (shown on the hosted page and in the README). */
	description: string;
}

export const testCards: readonly TestCard[] = [
	{ number: "4000000000000010", behaviour: "approved", description: "Approved at once." },
	{ number: "4111111111111111", behaviour: "approved", description: "Approved at once (Visa)." },
	{ number: "5555555555554444", behaviour: "approved", description: "Approved at once (Mastercard)." },
	{ number: "4000000000000028", behaviour: "declined", description: "Declined by the provider: HTTP 400 processing error, status failed." },
	{ number: "4000000000000051", behaviour: "insufficient_funds", description: "Insufficient funds: HTTP 400 processing error, status failed." },
	{ number: "4000000000000077", behaviour: "provider_error", description: "Provider error: HTTP 500 processing error, status failed." },
	{ number: "4000000000000036", behaviour: "three_ds", description: "3-D Secure: redirect to the sandbox 3DS page, where the buyer passes or fails." },
	{
		number: "4000000000000044",
		behaviour: "pending_then_approved",
		description: "Pending, then approved when the sandbox clock has moved pendingDelayMs (default 5 s).",
	},
	{ number: "4000000000000085", behaviour: "pending_then_declined", description: "Pending, then declined when the sandbox clock has moved pendingDelayMs." },
	{
		number: "4000000000000069",
		behaviour: "cascade",
		description: "Auto-cascade: the first provider declines, the next approves; only the approval is visible. Declined without cascade or a second provider.",
	},
];

/** The behaviour of a card number (digits only). */
export function testCardBehaviour(number: string): TestCardBehaviour {
	return testCards.find((card) => card.number === number)?.behaviour ?? "approved";
}

/** Card brand type from the leading digits, as the sandbox reports it. */
export function cardBrand(number: string): string {
	if (number.startsWith("4")) return "visa";
	if (/^(5[1-5]|2[2-7])/.test(number)) return "mastercard";
	if (/^3[47]/.test(number)) return "amex";
	return "card";
}
