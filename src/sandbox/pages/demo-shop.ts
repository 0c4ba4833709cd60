import { verifyNotification } from "../../notifications/message/verify.js";
import { openCallbackUrl } from "../../signing/callback-url.js";
import type { SandboxCore } from "../core/sandbox-core.js";
import type { ApiResponse } from "../wire/spec-responses.js";
import { escapeHtml, html, type PageResponse } from "./html.js";

/**
 * The sandbox's stand-in for a shop, for checkouts made without a shop of their own
 * (`merchant-gateway checkout create`): the pages the buyer returns to, which verify the signed
 * callback as a shop's callback page does, and an IPN route that verifies and acknowledges.
 */
export const DEMO_SHOP_PATH = "/demo-shop";

const LANDINGS: Record<string, string> = {
	callback: "callbackUrl: the buyer is back after paying",
	cancel: "cancelUrl: the buyer canceled",
	error: "errorUrl: the payment failed or expired",
};

/** GET /demo-shop and /demo-shop/{callback,cancel,error}?payload=...: what the buyer lands on. */
export function showDemoShopPage(core: SandboxCore, landing: string, url: URL): PageResponse {
	const header = "<header><h1>Demo shop</h1></header>";
	const about = `<p>The sandbox's stand-in for your shop. Your own pages get the same redirect; verify it with
<code>decodeCallback(url, { gatewayPublicKey })</code> before you trust it.</p>`;
	const where = LANDINGS[landing];
	if (landing === "") return html(200, "Demo shop", `${header}\n${about}`);
	if (where === undefined) return html(404, "Demo shop", `${header}\n<p>Nothing lives at this address.</p>`);
	let result: string;
	let status = 200;
	try {
		const { fields } = openCallbackUrl(url, {
			publicKey: core.gatewayPublicKey,
			signedString: core.signer.signedString,
		});
		const rows = ["status", "transactionId", "ref", "amount", "currency"]
			.map((name) => `<tr><th scope="row">${name}</th><td>${escapeHtml(String(fields[name] ?? ""))}</td></tr>`)
			.join("");
		result = `<p>The callback's signature verifies. The payment is <strong id="callback-status">${escapeHtml(
			String(fields.status ?? ""),
		)}</strong>.</p>\n<table>${rows}</table>`;
	} catch (error) {
		status = 400;
		result = `<p id="callback-status">The callback does not verify: ${escapeHtml((error as Error).message)}</p>`;
	}
	return html(status, "Demo shop", `${header}\n<h2>${escapeHtml(where)}</h2>\n${result}\n${about}`);
}

/** POST /demo-shop/ipn: verifies the IPN and acknowledges it with returnCode "100", as a shop's route does. */
export function acknowledgeDemoIpn(core: SandboxCore, body: string): ApiResponse {
	try {
		verifyNotification(body, {
			gatewayPublicKey: core.gatewayPublicKey,
			signedString: core.signer.signedString,
		});
		return { status: 200, json: { returnCode: "100" } };
	} catch (error) {
		return { status: 400, json: { returnCode: "400", message: (error as Error).message } };
	}
}
