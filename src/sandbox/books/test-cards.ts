/**
 * Test cards: the card number decides the outcome, on S2S charges and on the
 * hosted page alike. Every number is Luhn-valid. Any other Luhn-valid number
 * behaves like the approved card; a card whose expiry (cardMonth/cardYear) lies
 * before the sandbox clock is declined as expired. The gateway guide's own
 * sandbox cards are here too, so a merchant's test code works against both.
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

/** A card number with the outcome the sandbox gives it. */
export interface TestCard {
	/** The card number (Luhn-valid). */
	number: string;
	/** What the sandbox does with a charge on it. */
	behaviour: TestCardBehaviour;
	/** What happens, for the developer: statuses and HTTP codes (the hosted page tells the buyer in plainer words). */
	description: string;
	/** `gateway-guide`: from the gateway's integration guide (use expiry 12/30, CVV 123); `sandbox`: this SDK's. */
	source: "gateway-guide" | "sandbox";
}

/** The gateway guide's 3-D Secure passwords, which the sandbox's 3DS page accepts: one passes, one fails. */
export const threeDsPasswords = {
	/** Completes 3-D Secure. */
	pass: "123456",
	/** Fails 3-D Secure: the charge fails. */
	fail: "111111",
} as const;

const from =
	(source: TestCard["source"]) =>
	(number: string, behaviour: TestCardBehaviour, description: string): TestCard => ({
		number,
		behaviour,
		description,
		source,
	});
const guide = from("gateway-guide");
const own = from("sandbox");

/** Every test card, the gateway guide's first. */
export const testCards: readonly TestCard[] = [
	guide("4242424242424242", "approved", "The gateway guide's card: approved at once (expiry 12/30, CVV 123)."),
	guide(
		"4000000000001018",
		"declined",
		"The gateway guide's card: declined, HTTP 400, failed (expiry 12/30, CVV 123).",
	),
	own("4000000000000010", "approved", "Approved at once."),
	own("4111111111111111", "approved", "Approved at once (Visa)."),
	own("5555555555554444", "approved", "Approved at once (Mastercard)."),
	own("4000000000000028", "declined", "Declined by the provider: HTTP 400 processing error, status failed."),
	own("4000000000000051", "insufficient_funds", "Insufficient funds: HTTP 400 processing error, status failed."),
	own("4000000000000077", "provider_error", "Provider error: HTTP 500 processing error, status failed."),
	own("4000000000000036", "three_ds", "3-D Secure: the 3DS page asks for the password; 123456 passes, 111111 fails."),
	own("4000000000000044", "pending_then_approved", "Pending, then approved after pendingDelayMs (5 s) of clock."),
	own("4000000000000085", "pending_then_declined", "Pending, then declined after pendingDelayMs of clock."),
	own("4000000000000069", "cascade", "Auto-cascade: the first provider declines, the next approves; only that shows."),
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
