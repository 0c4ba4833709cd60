import { afterAll, beforeAll, beforeEach } from "vitest";
import type { FetchLike, GatewayClient, GatewayClientOptions } from "../../src/index.js";
import type { SignVersion } from "../../src/signing/index.js";
import {
	type FaultResponder,
	type ReceivedRequest,
	type Sandbox,
	type SandboxFault,
	type SandboxServer,
	startSandboxServer,
} from "../../src/testing.js";
import { keys } from "../support/vectors.js";
import { cardParams, makeClient, uniqueRef } from "./helpers.js";

/**
 * The client tests' gateway: the sandbox on real loopback HTTP, with two accounts that sign with the
 * test merchant key, one per signing version. Abnormal responses come from its fault injection
 * (`next(path, fault)`); what the client sent, from its log of received requests.
 */

/** The account of each signing version. */
export const ACCOUNTS: Record<SignVersion, string> = { "2.0": "M-1001", "2.1": "M-2001" };

/** IPNs are acknowledged in process: the client tests look at requests and responses, not at deliveries. */
const acknowledge = async () => Response.json({ returnCode: "100", message: "ok" });

export interface ClientGateway {
	readonly sandbox: Sandbox;
	readonly baseUrl: string;
	/** A client of the account of `signVersion` (2.0 unless the overrides say), talking to this gateway. */
	client(overrides?: Partial<GatewayClientOptions>): GatewayClient;
	/** Fails the next requests to `path`, one fault each (a responder's Response is sent as it is). */
	next(path: string, ...faults: ReadonlyArray<SandboxFault | FaultResponder>): void;
	/** How many requests reached `path` (every path without one). */
	count(path?: string): number;
	/** The requests received (at `path`), oldest first. */
	received(path?: string): ReceivedRequest[];
	/** The sandbox called in this process, no socket between: a client's `fetch` for tests that drive the clock. */
	inProcess: FetchLike;
	/** A transaction the sandbox really charged, in the account of `signVersion`. */
	chargedTransaction(signVersion?: SignVersion): Promise<string>;
	/** Forgets queued faults and received requests. */
	reset(): void;
}

/** Starts the gateway before the file's tests and closes it after them; faults and logs reset before each test. */
export function useGateway(): ClientGateway {
	let server: SandboxServer | undefined;
	const sandbox = () => {
		if (!server) throw new Error("the gateway is not started yet (use it inside a test)");
		return server.sandbox;
	};
	beforeAll(async () => {
		server = await startSandboxServer({
			gatewayKeys: { privateKey: keys.gatewayPrivate, publicKey: keys.gatewayPublic },
			merchants: (Object.entries(ACCOUNTS) as Array<[SignVersion, string]>).map(([signVersion, merchantId]) => ({
				merchantId,
				publicKey: keys.merchantPublic,
				signVersion,
			})),
			ipn: { fetch: acknowledge },
		});
	});
	afterAll(() => server?.close());
	beforeEach(() => {
		server?.sandbox.faults.clear();
		server?.sandbox.received.clear();
	});
	const gateway: ClientGateway = {
		get sandbox() {
			return sandbox();
		},
		get baseUrl() {
			if (!server) throw new Error("the gateway is not started yet");
			return server.url;
		},
		client: (overrides = {}) => {
			const merchantId = ACCOUNTS[overrides.signVersion ?? "2.0"];
			return makeClient({ baseUrl: gateway.baseUrl, allowLoopbackHttp: true, merchantId, ...overrides });
		},
		next: (path, ...faults) => sandbox().faults.next(path, ...faults),
		inProcess: (input, init) => sandbox().fetch(new Request(input, init)),
		count: (path) => sandbox().received.count(path),
		received: (path) => sandbox().received.all(path),
		chargedTransaction: async (signVersion = "2.0") => {
			const charged = await gateway.client({ signVersion }).card.charge(cardParams({ orderRef: uniqueRef() }));
			return charged.transactionId;
		},
		reset: () => {
			sandbox().faults.clear();
			sandbox().received.clear();
		},
	};
	return gateway;
}

export { uniqueRef };
