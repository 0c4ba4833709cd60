import { type TestCardBehaviour, testCards, threeDsPasswords } from "../books/test-cards.js";

/** What each test card does, told to the person paying (the README tells developers the HTTP side). */
const FOR_THE_BUYER: Record<TestCardBehaviour, string> = {
	approved: "The payment goes through.",
	declined: "The bank declines the payment.",
	insufficient_funds: "The bank declines the payment: not enough money on the card.",
	provider_error: "The bank cannot be reached, so the payment fails.",
	three_ds: `Your bank asks for the 3-D Secure password first (${threeDsPasswords.pass} confirms the payment).`,
	pending_then_approved: "The bank takes a moment; the shop confirms the payment a little later.",
	pending_then_declined: "The bank takes a moment, then declines the payment.",
	cascade: "The first bank declines, a second one accepts: the payment goes through.",
};

/** 4242424242424242 as 4242 4242 4242 4242, as it is printed on a card. */
const grouped = (number: string) => number.replace(/(\d{4})(?=\d)/g, "$1 ");

/** The hosted page's help: every test card (the gateway guide's first) and the 3-D Secure passwords. */
export function testCardHelp(): string {
	const rows = testCards
		.map(
			(card) =>
				`<tr><td class="card-number"><code>${grouped(card.number)}</code></td><td>${FOR_THE_BUYER[card.behaviour]}</td></tr>`,
		)
		.join("");
	const { pass, fail } = threeDsPasswords;
	return `<section class="help" id="test-cards" aria-labelledby="test-cards-title">
<h2 id="test-cards-title">Test cards</h2>
<p>This is a test page: no real money moves. Use one of these card numbers with the expiry date 12/30 and the
security code 123 (any future date and any 3 digits work too). If your bank asks for a 3-D Secure password,
<code>${pass}</code> confirms the payment and <code>${fail}</code> makes it fail.</p>
<table><thead><tr><th scope="col">Card number</th><th scope="col">What happens</th></tr></thead>
<tbody>${rows}</tbody></table>
</section>`;
}
