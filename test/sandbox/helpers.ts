import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { GatewayClient, type GatewayClientOptions } from "../../src/index.js";
import { openMessage, type SignVersion, sealMessage } from "../../src/signing/index.js";
import {
	createSandbox,
	type Sandbox,
	type SandboxMerchantOptions,
	type SandboxOptions,
	type SandboxServer,
	type SandboxServerOptions,
	startSandboxServer,
} from "../../src/testing.js";
import { sandboxHandlers } from "../../src/testing-msw.js";
import { keys } from "../support/vectors.js";

export const MERCHANT_ID = "merchant-1";

export function merchant(overrides: Partial<SandboxMerchantOptions> = {}): SandboxMerchantOptions {
	return { merchantId: MERCHANT_ID, publicKey: keys.merchantPublic, ...overrides };
}

/** A sandbox over real loopback HTTP with the throwaway vector keys as gateway keys. */
export function startSandbox(
	options: SandboxServerOptions & { merchant?: Partial<SandboxMerchantOptions> } = {},
): Promise<SandboxServer> {
	const { merchant: merchantOverrides, ...rest } = options;
	return startSandboxServer({
		gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
		merchants: [merchant(merchantOverrides)],
		ipn: { timeScale: 0.001, ...rest.ipn },
		...rest,
	});
}

/** Signs `fields` with the merchant's key and POSTs them as JSON. */
export async function signedPost(
	baseUrl: string,
	path: string,
	fields: Record<string, unknown>,
	options: { signVersion?: SignVersion; privateKey?: string; fetch?: typeof fetch } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
	const body = sealMessage(fields, {
		privateKey: options.privateKey ?? keys.merchantPrivate,
		signVersion: options.signVersion ?? "2.0",
	});
	const response = await (options.fetch ?? fetch)(`${baseUrl}${path}`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(body),
	});
	return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

let orderCounter = 0;
export const nextOrderRef = () => `order-${Date.now()}-${++orderCounter}`;

export function checkoutFields(receiver: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		merchantId: MERCHANT_ID,
		orderRef: nextOrderRef(),
		amount: 100,
		currency: "EUR",
		paymentMethod: "checkout",
		callbackUrl: `${receiver}/callback`,
		notificationUrl: `${receiver}/ipn`,
		cancelUrl: `${receiver}/cancel`,
		errorUrl: `${receiver}/error`,
		orderDescription: "Two tickets",
		...overrides,
	};
}

export function cardFields(
	receiver: string,
	cardNumber: string,
	overrides: Record<string, unknown> = {},
): Record<string, unknown> {
	const { paymentMethod: _p, ...common } = checkoutFields(receiver);
	return {
		...common,
		paymentMethod: "card",
		cardNumber,
		cardMonth: "12",
		cardYear: "39",
		cardSecurityCode: "123",
		billingFirstName: "Ada",
		billingLastName: "Lovelace",
		billingEmail: "ada@example.com",
		billingStreet1: "1 Main St",
		billingCity: "London",
		billingCountry: "GB",
		billingPostalCode: "N1 1AA",
		billingPhoneNumber: "+441234567",
		customerIp: "203.0.113.7",
		browserDetails: {
			accept_header: "text/html",
			screen_width: "1920",
			screen_height: "1080",
			screen_color_depth: "24",
			window_width: "1200",
			window_height: "800",
			language: "en-GB",
			java_enabled: "false",
			user_agent: "Mozilla/5.0",
			time_zone: "0",
			time_zone_name: "Europe/London",
		},
		...overrides,
	};
}

export interface ReceivedRequest {
	path: string;
	body: string;
	contentType: string | undefined;
}

/**
 * The merchant's side on real loopback HTTP: records IPNs and browser landings.
 * `ipnResponse` decides each IPN's response (default: acknowledge).
 */
export async function startReceiver(
	ipnResponse: (n: number, body: string) => { status: number; body: string } | "hang" = () => ack(),
) {
	const ipns: ReceivedRequest[] = [];
	const landings: string[] = [];
	const server = createServer((req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => {
			const body = Buffer.concat(chunks).toString("utf8");
			const path = (req.url ?? "/").split("?")[0] ?? "/";
			if (path === "/ipn") {
				ipns.push({ path, body, contentType: req.headers["content-type"] });
				const response = ipnResponse(ipns.length, body);
				if (response === "hang") return;
				res.writeHead(response.status, { "content-type": "application/json" }).end(response.body);
				return;
			}
			landings.push(req.url ?? "/");
			res.writeHead(200, { "content-type": "text/html" }).end(`<h1 id="landed">${path}</h1>`);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url,
		ipns,
		landings,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

export const ack = () => ({ status: 200, body: JSON.stringify({ returnCode: "100", description: "ok" }) });

/** Follows a hosted-page form post: returns the 303 Location. */
export async function postForm(
	url: string,
	fields: Record<string, string>,
): Promise<{ status: number; location: string | null; text: string }> {
	const response = await fetch(url, {
		method: "POST",
		headers: { "content-type": "application/x-www-form-urlencoded" },
		body: new URLSearchParams(fields).toString(),
		redirect: "manual",
	});
	return { status: response.status, location: response.headers.get("location"), text: await response.text() };
}

export type { SandboxServer };
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * For a test file: one merchant receiver for the whole file, and `sandbox()`
 * to start sandbox servers that are closed after each test.
 */
export function useSandboxFixture() {
	const servers: SandboxServer[] = [];
	let receiver: Receiver | undefined;
	beforeAll(async () => {
		receiver = await startReceiver();
	});
	afterAll(() => receiver?.close());
	afterEach(async () => {
		for (const server of servers.splice(0)) await server.close();
	});
	const started = (): Receiver => {
		if (!receiver) throw new Error("the receiver starts in beforeAll");
		return receiver;
	};
	return {
		get receiver(): Receiver {
			return started();
		},
		async sandbox(options: Parameters<typeof startSandbox>[0] = {}): Promise<SandboxServer> {
			const server = await startSandbox(options);
			servers.push(server);
			return server;
		},
		/** Creates a checkout session over HTTP, with this fixture's receiver as every merchant URL. */
		createSession: async (server: SandboxServer, overrides: Record<string, unknown> = {}) => {
			const response = await signedPost(server.url, "/v2/checkout", checkoutFields(started().url, overrides));
			expect(response.status).toBe(200);
			const fields = openMessage(response.json, { publicKey: keys.gatewayPublic });
			return { transactionId: String(fields.transactionId), paymentLink: String(fields.paymentLink), fields };
		},
	};
}

/** The page token of a payment link. */
export function tokenOf(link: string): string {
	return new URL(link).searchParams.get("token") ?? "";
}

/** The sandbox as a client reaches it: in-process through MSW, or over real loopback HTTP. */
export interface SandboxFace {
	sandbox: Sandbox;
	baseUrl: string;
	close(): Promise<void>;
}

/** Both faces, for `describe.each`. */
export const FACE_NAMES = ["msw", "http"] as const;

/**
 * Starts the sandbox behind one face. `unhandled` is what MSW does with a request the sandbox does not
 * serve: "error" fails the test; "bypass" lets it through (to a merchant's real IPN receiver).
 */
export async function startFace(
	name: (typeof FACE_NAMES)[number],
	options: SandboxOptions,
	unhandled: "error" | "bypass" = "error",
): Promise<SandboxFace> {
	if (name === "http") {
		const server = await startSandboxServer(options);
		return { sandbox: server.sandbox, baseUrl: server.url, close: () => server.close() };
	}
	const sandbox = await createSandbox(options);
	const server = setupServer(...sandboxHandlers(sandbox));
	server.listen({ onUnhandledFrame: unhandled });
	return {
		sandbox,
		baseUrl: sandbox.baseUrl,
		close: async () => {
			server.close();
			sandbox.close();
		},
	};
}

/** A client of `MERCHANT_ID` on a face, trusting the sandbox's gateway key. */
export function faceClient(face: SandboxFace, overrides: Partial<GatewayClientOptions> = {}): GatewayClient {
	return new GatewayClient({
		baseUrl: face.baseUrl,
		merchantId: MERCHANT_ID,
		privateKey: keys.merchantPrivate,
		gatewayPublicKey: face.sandbox.gatewayPublicKey,
		allowLoopbackHttp: true,
		...overrides,
	});
}
