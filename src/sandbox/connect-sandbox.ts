import * as z from "zod/mini";
import { AuthenticationError } from "../errors/authentication-error.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { ConnectionError } from "../errors/connection-error.js";
import { InvalidResponseError } from "../errors/invalid-response-error.js";
import type { FieldIssue } from "../errors/request-validation-error.js";
import { parseOptions } from "../internal/options.js";
import { parseJsonObject } from "../internal/plain-object.js";
import { isLoopbackHost } from "../schemas/fields.js";
import { lazySchema } from "../schemas/lazy.js";
import { readControlToken, readRunningSandbox } from "./control/control-files.js";
import {
	type ClockMove,
	CONTROL_PATH,
	type ControlTransaction,
	type RefundDecisionResult,
} from "./control/control-types.js";
import { DURATION_RULE, parseDuration } from "./control/duration.js";
import type { DeliveryAttempt } from "./wire/notifier.js";

/** Where the sandbox runs and its control credential: a state directory, or both given directly. */
export interface ConnectSandboxOptions {
	/**
	 * The sandbox's loopback origin, such as `http://127.0.0.1:8080`.
	 * @default the address the sandbox running on `stateDir` recorded there
	 */
	url?: string | undefined;
	/**
	 * The sandbox's state directory (`merchant-gateway sandbox --state-dir <dir>`): its control credential,
	 * and where the sandbox listens.
	 * @default none: give `url` and `token`
	 */
	stateDir?: string | undefined;
	/** The control credential. @default the one in `stateDir` */
	token?: string | undefined;
}

/**
 * The controls of a sandbox server running in another process, over its control API: what
 * `merchant-gateway sandbox transactions|refunds|ipn|clock` do, for a test's code. Every method
 * throws `AuthenticationError` when the credential is refused, `ConnectionError` when no sandbox
 * responds, and `ConfigurationError` naming the argument the sandbox refused.
 */
export interface SandboxControl {
	/** The sandbox's loopback origin the controls go to. */
	readonly url: string;
	/** Every transaction, oldest first, each with its refunds. */
	transactions(): Promise<ControlTransaction[]>;
	/** Approves a refund held for approval; resolves once the first attempt to deliver its IPN has ended. */
	approveRefund(refundId: string): Promise<RefundDecisionResult>;
	/** Rejects a held refund (`refund_failed`, the amount refundable again); `reason` becomes its message. */
	rejectRefund(refundId: string, reason?: string): Promise<RefundDecisionResult>;
	/** The latest IPN delivery attempts, oldest first. @param options.limit how many, 1 to 1000 (default 50) */
	deliveries(options?: { limit?: number | undefined }): Promise<DeliveryAttempt[]>;
	/**
	 * Delivers the current IPN of a transaction or a refund now, unchanged, and resolves with the merchant's
	 * response. Acknowledged, it calls off the retry that was waiting.
	 */
	resendIpn(transactionOrRefundId: string): Promise<DeliveryAttempt>;
	/**
	 * Moves the sandbox clock forward (milliseconds, or `"90s"`, `"30m"`, `"25h"`): sessions past their
	 * expiry expire and retries that fall due run; resolves once those deliveries have ended.
	 */
	advanceClock(by: number | string): Promise<ClockMove>;
}

const SUBJECT = "sandbox connection options";
/** Approving a refund or moving the clock waits for IPN deliveries, each up to the 30 s acknowledgement time. */
const CONTROL_TIMEOUT_MS = 120_000;

/**
 * Connects to a sandbox server running in another process (started with `merchant-gateway sandbox
 * --state-dir <dir>`, or `startSandboxServer({ controlToken })`). Reads the state directory; sends nothing.
 * @throws ConfigurationError when the options or the state directory's files are wrong.
 */
export async function connectSandbox(options: ConnectSandboxOptions): Promise<SandboxControl> {
	const { stateDir, url: givenUrl, token: givenToken } = parseOptions(connectOptions, options, SUBJECT);
	const token = givenToken ?? (await readControlToken(stateDir ?? ""));
	const url =
		givenUrl === undefined ? recordedOrigin(await readRunningSandbox(stateDir ?? "")) : new URL(givenUrl).origin;
	const call = <T>(method: "GET" | "POST", path: string, body?: Record<string, unknown>) =>
		controlCall<T>(url, token, method, path, body);
	return {
		url,
		transactions: async () => (await call<{ transactions: ControlTransaction[] }>("GET", "/transactions")).transactions,
		approveRefund: (refundId) => call("POST", `/refunds/${encodeURIComponent(refundId)}/approve`),
		rejectRefund: (refundId, reason) =>
			call("POST", `/refunds/${encodeURIComponent(refundId)}/reject`, reason === undefined ? {} : { reason }),
		deliveries: async (asked = {}) => {
			const query = asked.limit === undefined ? "" : `?limit=${encodeURIComponent(String(asked.limit))}`;
			return (await call<{ deliveries: DeliveryAttempt[] }>("GET", `/ipn/deliveries${query}`)).deliveries;
		},
		resendIpn: async (id) => (await call<{ delivery: DeliveryAttempt }>("POST", "/ipn/resend", { id })).delivery,
		advanceClock: async (by) => call("POST", "/clock/advance", { ms: milliseconds(by) }),
	};
}

/** The rule a control origin follows: an absolute http(s) URL on loopback (the control API serves this machine). */
function controlOriginRule(value: string): string | undefined {
	const url = URL.parse(value);
	if (!url) return "must be an absolute URL such as http://127.0.0.1:8080";
	if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http(s) URL";
	if (!isLoopbackHost(url.hostname))
		return `${url.hostname} must be the sandbox's loopback address (the control API serves this machine only)`;
	return undefined;
}

/** The origin a running sandbox recorded in its state directory, held to the same rule as a given `url`. */
function recordedOrigin(running: { url: string }): string {
	const rule = controlOriginRule(running.url);
	if (rule !== undefined) throw new ConfigurationError([{ field: "url", message: rule }], SUBJECT);
	return new URL(running.url).origin;
}

const connectOptions = lazySchema(() =>
	z
		.object({
			stateDir: z.optional(z.string({ error: "must be a directory path" })),
			url: z.optional(
				z.string({ error: "must be a string" }).check(
					z.superRefine((value, context) => {
						const rule = controlOriginRule(value);
						if (rule !== undefined) context.issues.push({ code: "custom", message: rule, input: value });
					}),
				),
			),
			token: z.optional(z.string({ error: "must be a string" })),
		})
		.check(
			z.refine((given) => given.stateDir !== undefined || (given.url !== undefined && given.token !== undefined), {
				message: "is required unless url and token are given",
				path: ["stateDir"],
			}),
		),
);

function milliseconds(by: number | string): number {
	const ms = typeof by === "number" ? by : parseDuration(by);
	if (ms === undefined || !Number.isInteger(ms) || ms < 0) {
		const rule = typeof by === "number" ? "must be a whole number of milliseconds, 0 or more" : DURATION_RULE;
		throw new ConfigurationError([{ field: "by", message: rule }], "clock move");
	}
	return ms;
}

/** One control API call: its JSON on success, else the error that says what went wrong. */
async function controlCall<T>(
	url: string,
	token: string,
	method: "GET" | "POST",
	path: string,
	body: Record<string, unknown> | undefined,
): Promise<T> {
	const full = `${url}${CONTROL_PATH}${path}`;
	const where = { path: `${CONTROL_PATH}${path}` };
	let response: Response;
	let text: string;
	try {
		response = await fetch(full, {
			method,
			headers: {
				authorization: `Bearer ${token}`,
				...(body === undefined ? {} : { "content-type": "application/json" }),
			},
			body: body === undefined ? null : JSON.stringify(body),
			signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
		});
		text = await response.text();
	} catch (error) {
		throw new ConnectionError(`No sandbox responded at ${url}: is it running?`, { ...where, cause: error });
	}
	const parsed = parseJsonObject(text);
	const context = { ...where, status: response.status };
	if (response.ok && parsed) return parsed as T;
	const message = typeof parsed?.message === "string" ? parsed.message : undefined;
	if ((response.status === 401 || response.status === 403) && message)
		throw new AuthenticationError(`The sandbox refused the control request: ${message}`, context);
	const issues = parsed?.issues;
	if (Array.isArray(issues) && issues.length > 0)
		throw new ConfigurationError(issues as FieldIssue[], "sandbox control request");
	const why = message ?? `HTTP ${response.status} without the control API's JSON`;
	throw new InvalidResponseError(`The sandbox's control API failed: ${why}`, text.slice(0, 200), context);
}
