import * as z from "zod/mini";
import { flag, parseOptions } from "../../internal/options.js";
import { lazySchema } from "../../schemas/lazy.js";
import type { SignedStringForm } from "../../signing/canonical.js";
import { epochOf } from "../books/clock.js";
import type { SandboxMerchantOptions } from "../books/merchant-options.js";
import { type DeliveryAttempt, delayMs, ipnOptionsObject } from "../wire/notifier.js";

const DEFAULT_BASE_URL = "https://sandbox.merchant-gateway.test";
const TIME_RULE = "must be a valid date, ISO 8601 string or epoch milliseconds";
const BASE_URL_RULE =
	"must be an absolute http(s) URL without query or fragment, such as https://sandbox.merchant-gateway.test";
const STATE_DIR_RULE = "must be a directory path: a non-empty string";

function isBaseUrl(value: string): boolean {
	const url = URL.parse(value);
	return (url?.protocol === "https:" || url?.protocol === "http:") && !url.search && !url.hash;
}

const isTime = (value: unknown) =>
	(value instanceof Date || typeof value === "string" || typeof value === "number") && epochOf(value) !== undefined;

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

/** The options of `createSandbox` checked by rules (the merchants and keys are checked where they are loaded). */
function sandboxOptionsShape() {
	return {
		/**
		 * Origin the MSW handlers respond on and links point to when a request carries none.
		 * @default "https://sandbox.merchant-gateway.test"
		 */
		baseUrl: z._default(z.string({ error: BASE_URL_RULE }).check(z.refine(isBaseUrl, BASE_URL_RULE)), DEFAULT_BASE_URL),
		/**
		 * Accept `http:` callback/notification/cancel/error URLs on loopback hosts
		 * (localhost, 127.0.0.0/8, [::1]), so a test's local server can receive IPNs.
		 * The real gateway requires https. @default true
		 */
		allowLoopbackHttp: flag(true),
		/** Sandbox-clock milliseconds between a pending charge and its final outcome. @default 5_000 */
		pendingDelayMs: z._default(delayMs(), 5_000),
		/**
		 * Freeze the sandbox clock at this time; it then moves only with `sandbox.clock.advance`/`set`.
		 * With `stateDir`, it applies when the directory is new: afterwards the clock resumes where it stood.
		 * @default follows real time
		 */
		now: z.optional(z.custom<Date | string | number>(isTime, TIME_RULE)),
		/**
		 * A directory that keeps the sandbox's state across restarts (Node.js only): the gateway's keys, the
		 * merchant accounts, transactions, refunds, pending IPN deliveries and the clock. Created on first use;
		 * a later sandbox on the same directory resumes where the last one stopped. One sandbox at a time per
		 * directory: the second fails naming the pid that holds it. Every change a response reports is on
		 * disk before the response is sent. `merchants` given here replace saved accounts with the same id.
		 * @default none: the state lives in memory and ends with the sandbox
		 */
		stateDir: z.optional(
			z
				.string({ error: STATE_DIR_RULE })
				.check(z.refine((dir) => dir.length > 0 && !dir.includes("\0"), STATE_DIR_RULE)),
		),
		/** IPN delivery settings. @default see SandboxIpnOptions */
		ipn: z.prefault(ipnOptionsObject(), {}),
	};
}
type SandboxOptionsObject = z.ZodMiniObject<ReturnType<typeof sandboxOptionsShape>>;

/** The rules and defaults of the sandbox's options. */
export const sandboxOptionsSchema = lazySchema((): SandboxOptionsObject => z.object(sandboxOptionsShape()));

/**
 * Options of `createSandbox`.
 * @interface
 */
export type SandboxOptions = z.input<SandboxOptionsObject> & {
	/** Merchant accounts. More can be added with `sandbox.addMerchant`. @default none */
	merchants?: readonly SandboxMerchantOptions[] | undefined;
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
	/** Receives a line of news for every request, status change and delivery attempt. @default none */
	onEvent?: ((event: SandboxEvent) => void) | undefined;
	/**
	 * How the simulated gateway turns a 2.0 message into its signed string, to rehearse a gateway
	 * that signs differently from the reference form (give the SDK the same `signedString`).
	 * @default the gateway's reference form (`canonicalString`)
	 */
	signedString?: SignedStringForm | undefined;
};

/** A sandbox's options with defaults applied, every one checked. */
export type SandboxSettings = ReturnType<typeof sandboxSettings>;

/**
 * Checks and completes the sandbox's options; `frozenAt` is the epoch milliseconds a frozen clock stands still at.
 * @throws ConfigurationError listing every wrong option and its rule.
 */
export function sandboxSettings(options: SandboxOptions) {
	const { now, baseUrl, ...settings } = parseOptions(sandboxOptionsSchema, options, "sandbox options");
	return { ...settings, baseUrl: baseUrl.replace(/\/+$/, ""), frozenAt: now === undefined ? undefined : epochOf(now) };
}
