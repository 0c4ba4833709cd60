import { type TestCard, testCards, threeDsPasswords } from "../test-cards.js";
import { escapeHtml } from "./html.js";

/** The hosted page's help: every test card (the gateway guide's first) and the 3-D Secure passwords. */
export function testCardHelp(): string {
	const row = (card: TestCard) => `<td><code>${card.number}</code></td><td>${escapeHtml(card.description)}</td>`;
	const rows = testCards.map((card) => `<tr>${row(card)}</tr>`).join("");
	return `<section class="help" id="test-cards">
<p>Test cards work with expiry 12/30 and CVC 123 (any future expiry and any CVC will do).
3-D Secure password: <code>${threeDsPasswords.pass}</code> passes, <code>${threeDsPasswords.fail}</code> fails.</p>
<table>${rows}</table>
</section>`;
}
