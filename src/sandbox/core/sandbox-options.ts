import type { SignedStringForm } from "../../signing/canonical.js";
import type { SandboxMerchantOptions } from "../books/merchant-options.js";
import type { DeliveryAttempt } from "../wire/notifier.js";

/** IPN delivery settings. */
export interface SandboxIpnOptions {
	/**
	 * Replaces the gateway's retry schedule with your own: the delay before each
	 * retry, counted from the end of the failed attempt, in milliseconds of
	 * sandbox-clock time before `timeScale`; one retry per entry.
	 * @default the gateway's retry schedule: 10 retries, the first 30 minutes after
	 * the transaction (or refund) started, then every 5 minutes
	 */
	retryDelaysMs?: readonly number[] | undefined;
	/**
	 * Multiplies every retry delay. Retries are scheduled on the sandbox clock: a
	 * test passes 0.001 to run the gateway's 75 minutes in 4.5 seconds, or freezes
	 * the clock (`now`) and moves it with `sandbox.clock.advance`.
	 * @default 1
	 */
	timeScale?: number | undefined;
	/** How long the merchant has to respond with returnCode "100" (spec: 30 s). Not scaled. @default 30_000 */
	ackTimeoutMs?: number | undefined;
	/** Extra copies of every acknowledged notification, sent at once, to test idempotency. @default 0 */
	duplicates?: number | undefined;
	/** The fetch that delivers IPNs. @default globalThis.fetch at delivery time (so MSW can intercept it) */
	fetch?: typeof fetch | undefined;
}

/** What the sandbox reports as it works (the CLI prints these). Card numbers never appear. */
export type SandboxEvent =
	| {
			/** A request got its response. */
			type: "request";
			/** Its HTTP method. */
			method: string;
			/** Its path, such as `/v2/checkout`. */
			path: string;
			/** The HTTP status of the response. */
			status: number;
			/** Why a request was refused when the response cannot say, such as why its signature did not verify. */
			detail?: string | undefined;
	  }
	| {
			/** A transaction changed status. */
			type: "transaction";
			/** Its id. */
			transactionId: string;
			/** Its new status. */
			status: string;
			/** The status's code. */
			statusCode: number;
	  }
	| {
			/** A refund changed status. */
			type: "refund";
			/** Its id. */
			refundId: string;
			/** Its new status. */
			status: string;
			/** The status's code. */
			statusCode: number;
	  }
	| {
			/** An IPN delivery attempt ended. */
			type: "delivery";
			/** What happened to it. */
			attempt: DeliveryAttempt;
	  }
	| {
			/** Something failed inside the sandbox. */
			type: "error";
			/** What failed. */
			message: string;
	  };

/** Options of `createSandbox`. */
export interface SandboxOptions {
	/** Merchant accounts. More can be added with `sandbox.addMerchant`. @default none */
	merchants?: readonly SandboxMerchantOptions[] | undefined;
	/**
	 * A directory that keeps the sandbox's state across restarts (Node.js only): the gateway's keys, the
	 * merchant accounts, transactions, refunds, pending IPN deliveries and the clock. Created on first use;
	 * a later sandbox on the same directory resumes where the last one stopped. One sandbox at a time per
	 * directory: the second fails naming the pid that holds it. Every change a response reports is on
	 * disk before the response is sent. `merchants` given here replace saved accounts with the same id.
	 * @default none: the state lives in memory and ends with the sandbox
	 */
	stateDir?: string | undefined;
	/**
	 * The gateway's own key pair (PEM). With `stateDir`, it is saved on first use and must match the saved
	 * pair afterwards. @default a fresh 2048-bit pair generated at creation, or the one saved in `stateDir`
	 */
	gatewayKeys?:
		| {
				/** The gateway's private key (PEM): the sandbox signs with it. */
				privateKey: string;
				/** Its public key (PEM): what your code verifies with. */
				publicKey: string;
		  }
		| undefined;
	/**
	 * Freeze the sandbox clock at this time; it then moves only with `sandbox.clock.advance`/`set`.
	 * With `stateDir`, it applies when the directory is new: afterwards the clock resumes where it stood.
	 * @default follows real time
	 */
	now?: Date | string | number | undefined;
	/**
	 * Origin the MSW handlers respond on and links point to when a request carries none.
	 * @default "https://sandbox.merchant-gateway.test"
	 */
	baseUrl?: string | undefined;
	/**
	 * Accept `http:` callback/notification/cancel/error URLs on loopback hosts
	 * (localhost, 127.0.0.0/8, [::1]), so a test's local server can receive IPNs.
	 * The real gateway requires https. @default true
	 */
	allowLoopbackHttp?: boolean | undefined;
	/** Sandbox-clock milliseconds between a pending charge and its final outcome. @default 5_000 */
	pendingDelayMs?: number | undefined;
	/** IPN delivery settings. @default see SandboxIpnOptions */
	ipn?: SandboxIpnOptions | undefined;
	/** Receives a line of news for every request, status change and delivery attempt. @default none */
	onEvent?: ((event: SandboxEvent) => void) | undefined;
	/**
	 * How the simulated gateway turns a 2.0 message into its signed string, to rehearse a gateway
	 * that signs differently from the reference form (give the SDK the same `signedString`).
	 * @default the gateway's reference form (`canonicalString`)
	 */
	signedString?: SignedStringForm | undefined;
}

export const DEFAULT_BASE_URL = "https://sandbox.merchant-gateway.test";
