import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { SignVersion } from "../../src/index.js";
import { sealMessage } from "../../src/signing/index.js";
import { keys, vector } from "../support/vectors.js";

export const gatewayPublicKey = keys.gatewayPublic;
/** Not the gateway: signatures made with it must be refused. */
export const merchantPrivateKey = keys.merchantPrivate;

export const transactionFields = (): Record<string, unknown> => structuredClone(vector("transaction-ipn-2.0").opened);
export const refundFields = (): Record<string, unknown> => structuredClone(vector("refund-ipn-2.0").opened);

/** A fresh IPN body signed with the vectors' gateway key, as JSON text. */
export function signedBody(
	fields: Record<string, unknown>,
	signVersion: SignVersion = "2.0",
	privateKey = keys.gatewayPrivate,
): string {
	return JSON.stringify(sealMessage(fields, { privateKey, signVersion }));
}

/** A transaction IPN for its own event: each id is a distinct transaction. */
export function transactionIpn(id: string, signVersion: SignVersion = "2.0", status = "successful"): string {
	return signedBody({ ...transactionFields(), transactionId: id, status }, signVersion);
}

export function ipnRequest(body: BodyInit | null, init: RequestInit = {}): Request {
	return new Request("http://127.0.0.1/ipn", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body,
		...init,
	});
}

/** Starts `listener` on 127.0.0.1, port 0; returns its base URL and a closer. */
export async function listen(
	listener: RequestListener,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
	const server = createServer(listener);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		server,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Resolves after every queued microtask and a macrotask turn. */
export const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise with its resolvers exposed. */
export function deferred<T = void>() {
	let resolve!: (value: T) => void;
	let reject!: (error: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}
