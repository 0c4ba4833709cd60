import { afterAll, beforeAll, expect, test } from "vitest";
import { openMessage } from "../../src/signing/index.js";
import type { SandboxEvent } from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { cardFields, checkoutFields, postForm, signedPost, startReceiver, startSandbox } from "./helpers.js";

// Card numbers and security codes must not leave the sandbox: not in events
// (what the CLI prints), responses, IPNs, deliveries or transaction views.
const CARD = "5555555555554444";
const CVC = "9876";
const events: SandboxEvent[] = [];
let server: Awaited<ReturnType<typeof startSandbox>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
	receiver = await startReceiver();
	server = await startSandbox({ onEvent: (event) => events.push(event) });
});
afterAll(async () => {
	await server.close();
	await receiver.close();
});

test("a canary card number and CVC appear nowhere the sandbox writes", async () => {
	const outputs: string[] = [];
	const s2s = await signedPost(server.url, "/v2/card/api", cardFields(receiver.url, CARD, { cardSecurityCode: CVC }));
	outputs.push(JSON.stringify(s2s.json));
	const invalid = await signedPost(
		server.url,
		"/v2/card/api",
		cardFields(receiver.url, "5555555555554445", { cardSecurityCode: CVC }),
	);
	outputs.push(JSON.stringify(invalid.json));
	const session = openMessage((await signedPost(server.url, "/v2/checkout", checkoutFields(receiver.url))).json, {
		publicKey: keys.gatewayPublic,
	});
	const link = new URL(String(session.paymentLink));
	const page = await postForm(`${link.origin}${link.pathname}`, {
		token: link.searchParams.get("token") ?? "",
		action: "pay",
		cardNumber: CARD,
		cardMonth: "12",
		cardYear: "40",
		cardSecurityCode: CVC,
	});
	outputs.push(page.location ?? "", page.text);
	await server.sandbox.whenIdle();
	outputs.push(
		JSON.stringify(events),
		JSON.stringify(server.sandbox.deliveries()),
		JSON.stringify(server.sandbox.transactions()),
	);
	outputs.push(...receiver.ipns.map((r) => r.body));
	const all = outputs.join("\n");
	expect(all).toContain("555555");
	expect(all).not.toContain(CARD);
	expect(all).not.toContain("5555555555554445");
	// A bare 4-digit CVC could occur by chance inside a signature or id; look for it as a value.
	expect(all).not.toContain('"cardSecurityCode"');
	expect(all).not.toContain(`"${CVC}"`);
	expect(events.some((e) => e.type === "request")).toBe(true);
});
