import type { SignedStringForm } from "../../signing/canonical.js";
import type { PublicKeyLike } from "../../signing/keys.js";
import type { SignVersion } from "../../signing/seal.js";

/** A payment provider behind a merchant account. */
export interface SandboxProvider {
	/** Shown as the transaction descriptor's provider and in `sandbox.transaction(id).attempts`. */
	name: string;
	/**
	 * `s2s` providers take S2S card charges and hosted-page payments; `hpp` ones only hosted-page payments.
	 * @default "s2s"
	 */
	kind?: "s2s" | "hpp" | undefined;
	/** This provider refunds the full amount only (the spec's "five specific providers"). @default false */
	fullRefundOnly?: boolean | undefined;
}

/** The fee model of an account. All money is computed in integer minor units. */
export interface SandboxFeeOptions {
	/** Processing fee, percent of the amount. @default 2.9 */
	percent?: number | undefined;
	/** Fixed processing fee per transaction, in major units. @default 0.3 */
	fixed?: number | undefined;
	/** Rolling reserve held back from the settlement, percent of the amount. @default 0 */
	rollingReservePercent?: number | undefined;
	/** Fixed operational fee per transaction, in major units. @default 0 */
	operate?: number | undefined;
	/** Days from payment to estimationSettlementAt. @default 2 */
	settlementDelayDays?: number | undefined;
	/** Days from payment to fees.estimationRollingReleaseAt. @default 180 */
	rollingReleaseDays?: number | undefined;
}

/** A merchant account registered in the sandbox. */
export interface SandboxMerchantOptions {
	/** The account's merchantId (1-50 characters). */
	merchantId: string;
	/** The merchant's registered public key(s): requests must verify with one of them. */
	publicKey: PublicKeyLike | readonly PublicKeyLike[];
	/** Signing version of the account: responses, IPNs and callbacks use it. Requests may use either. @default "2.0" */
	signVersion?: SignVersion | undefined;
	/**
	 * `auto` processes refunds at once; `manual` holds them until `sandbox.approveRefund(id)` or `rejectRefund(id)`.
	 * @default "auto"
	 */
	refundApproval?: "auto" | "manual" | undefined;
	/**
	 * Providers in cascade order. Only `hpp` providers means S2S charges get the no-S2S-provider error.
	 * @default two S2S providers, "Sandbox Acquirer A" and "Sandbox Acquirer B"
	 */
	providers?: readonly SandboxProvider[] | undefined;
	/** Retry a declined S2S charge at the next S2S provider (only the final outcome is visible). @default true */
	autoCascade?: boolean | undefined;
	/** Percent of the processing fee the merchant pays when a request omits feeBySeller. @default 100 */
	feeBySeller?: number | undefined;
	/** Fee model. @default see SandboxFeeOptions */
	fees?: SandboxFeeOptions | undefined;
	/** Company name shown on the hosted page when a request has no brandName. @default "Sandbox Merchant" */
	brandName?: string | undefined;
	/** Logo URL shown on the hosted page when a request has no logoSource. @default none */
	logoSource?: string | undefined;
	/** Hosts allowed as websiteUrl (or callbackUrl when websiteUrl is omitted); subdomains included. @default any host */
	allowedDomains?: readonly string[] | undefined;
	/** Transaction descriptor. @default "SANDBOX*" + brandName, 22 characters at most */
	descriptor?: string | undefined;
}

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
			attempt: import("../ipn/notifier.js").DeliveryAttempt;
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
	/** The gateway's own key pair (PEM). @default a fresh 2048-bit pair generated at creation */
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
/** The gateway's IPN retry schedule (D7, evidence): 10 retries, 30 minutes after the start, then every 5 minutes. */
export const GATEWAY_RETRY_SCHEDULE = { retries: 10, firstAfterStartMs: 30 * 60_000, everyMs: 5 * 60_000 } as const;
export const DEFAULT_PROVIDERS: readonly SandboxProvider[] = [
	{ name: "Sandbox Acquirer A" },
	{ name: "Sandbox Acquirer B" },
];
