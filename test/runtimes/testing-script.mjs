// A merchant's test script on `merchant-gateway/testing` alone (no msw): an in-process sandbox, a
// client talking to it through its fetch, a paid card charge whose IPN cannot be delivered (so a
// retry waits on the sandbox clock). It prints what happened and ends without closing anything:
// the runtime must exit by itself, as Node does.
import { readFileSync } from "node:fs";
import process from "node:process";
import { GatewayClient } from "merchant-gateway";
import { createSandbox } from "merchant-gateway/testing";

const keys = JSON.parse(readFileSync(process.argv[2], "utf8"));
const sandbox = await createSandbox({
	gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
	merchants: [{ merchantId: "merchant-1", publicKey: keys.merchantPublic }],
});
const client = new GatewayClient({
	baseUrl: sandbox.baseUrl,
	merchantId: "merchant-1",
	privateKey: keys.merchantPrivate,
	gatewayPublicKey: sandbox.gatewayPublicKey,
	fetch: (input, init) => sandbox.fetch(new Request(input, init)),
	allowLoopbackHttp: true,
});
const charge = await client.card.charge({
	orderRef: `script-${Date.now()}`,
	amount: 20,
	currency: "EUR",
	callbackUrl: "https://shop.example/callback",
	// Nothing listens on port 9: the delivery fails and its retry is scheduled.
	notificationUrl: "http://127.0.0.1:9/ipn",
	cancelUrl: "https://shop.example/cancel",
	errorUrl: "https://shop.example/error",
	orderDescription: "Script",
	cardNumber: "4242424242424242",
	cardMonth: "12",
	cardYear: "39",
	cardSecurityCode: "123",
	billingFirstName: "Ana",
	billingLastName: "Lima",
	billingEmail: "ana@example.com",
	billingStreet1: "1 Main St",
	billingCity: "London",
	billingCountry: "GB",
	billingPostalCode: "N1 1AA",
	billingPhoneNumber: "+1 555 0100",
	customerIp: "203.0.113.7",
	browserDetails: {
		accept_header: "text/html",
		screen_width: "1920",
		screen_height: "1080",
		screen_color_depth: "24",
		window_width: "1280",
		window_height: "800",
		language: "en-US",
		java_enabled: "false",
		user_agent: "Mozilla/5.0",
		time_zone: "0",
		time_zone_name: "UTC",
	},
});
// Let the first delivery attempt fail, so that its retry is waiting when the script ends.
const deadline = Date.now() + 10_000;
while (sandbox.deliveries().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
const [delivery] = sandbox.deliveries();
console.log(JSON.stringify({ outcome: charge.outcome, delivery: delivery?.outcome }));
