import * as z from "zod/mini";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { toFieldIssues } from "../../internal/field-issues.js";
import { finiteNumber, MAX_DURATION_MS } from "../../internal/options.js";
import { isThenable } from "../../internal/thenable.js";
import { lazySchema } from "../../schemas/lazy.js";
import type { SignVersion } from "../../signing/seal.js";
import type { ControllableClock } from "../books/clock.js";
import type { GatewaySigner } from "./gateway-signer.js";
import { normalPath, type ReceivedEntry, type ReceivedRequest, receivedView } from "./received-log.js";
import type { SandboxResponse } from "./request-response.js";

/** A response a fault gives instead of the sandbox's. */
export interface FaultResponse {
	/** @default 200 */
	status?: number | undefined;
	/** @default `content-type: application/json` when `json` is given, else none */
	headers?: Record<string, string> | undefined;
	/** The body text, sent as is. @default "" */
	body?: string | undefined;
	/** A body to send as JSON (instead of `body`). @default none */
	json?: unknown;
}

/** What a fault's responder can use to build its response. */
export interface FaultTools {
	/**
	 * The sandbox's own response to this request: the request is handled as usual, state changes
	 * included (a checkout is created, a refund made). Called again, it gives the same response.
	 */
	sandboxResponse(): Promise<SandboxResponse>;
	/** The signing version the merchant's account responds in (2.0 when the request names no account). */
	readonly signVersion: SignVersion;
	/** Signs `fields` with the gateway's key as a flat response (checkout creation, transaction query). */
	sealFlat(fields: Record<string, unknown>, signVersion?: SignVersion): Record<string, unknown>;
	/** Signs `data` with the gateway's key inside a wrapped response (card charge, refund, refund query). */
	sealWrapped(
		status: string,
		message: string | null,
		data: Record<string, unknown>,
		signVersion?: SignVersion,
	): Record<string, unknown>;
}

/**
 * Builds the response to a faulted request. A Web `Response` is sent as it is; `Response.error()`
 * (MSW's `HttpResponse.error()`) drops the connection.
 */
export type FaultResponder = (
	request: ReceivedRequest,
	gateway: FaultTools,
) => FaultResponse | Response | Promise<FaultResponse | Response>;

/**
 * Where a fault closes the connection:
 * - `before-reading`: as soon as the request arrives, its body unread; nothing is processed.
 * - `after-reading`: the request is read and recorded, not processed.
 * - `after-processing`: the sandbox handles the request (a checkout is created...), then closes without responding.
 * - `mid-response`: the status, the headers and half of the body go out, then the connection closes.
 */
export type FaultDrop = "before-reading" | "after-reading" | "after-processing" | "mid-response";

/**
 * What goes wrong with one request. Without `response` or `drop` the request gets the
 * sandbox's own response, after the hold (`delayMs`, `until`, `hang`) if any.
 */
export interface SandboxFault {
	/** Holds the request this many milliseconds of the sandbox clock (a frozen clock moves with `clock.advance`). */
	delayMs?: number | undefined;
	/** Holds the request until this promise settles. */
	until?: PromiseLike<unknown> | undefined;
	/** Holds the request until the client gives up or the sandbox closes: a gateway that never responds. */
	hang?: boolean | undefined;
	/** The response instead of the sandbox's: fixed, a Web `Response`, or built by a function. @default the sandbox's */
	response?: FaultResponse | Response | FaultResponder | undefined;
	/** Closes the connection instead of responding (see {@link FaultDrop}). @default none */
	drop?: FaultDrop | undefined;
}

/** Fault injection: the next request(s) to a path fail the way a test says. */
export interface SandboxFaults {
	/**
	 * Queues faults for the next requests to `path` (such as `/v2/checkout`), one request each, in order;
	 * requests after them get the sandbox's own responses again. A function is shorthand for `{ response: fn }`.
	 */
	next(path: string, ...faults: readonly (SandboxFault | FaultResponder)[]): void;
	/** How many queued faults are still waiting for a request (to `path`, or in all). */
	pending(path?: string): number;
	/** How many requests a fault holds back right now (to `path`, or in all): wait for it before moving the clock. */
	held(path?: string): number;
	/** Drops every queued fault; requests held right now are let go (their connections dropped). */
	clear(): void;
}

const DROPS: readonly FaultDrop[] = ["before-reading", "after-reading", "after-processing", "mid-response"];

const DELAY_RULE = `must be a finite number of milliseconds, 0 or more (at most ${MAX_DURATION_MS})`;

/** The rules of one fault (its object form): each field optional, checked when present. */
const faultSchema = lazySchema(() =>
	z.object({
		delayMs: z.optional(finiteNumber(0, MAX_DURATION_MS, DELAY_RULE)),
		until: z.optional(z.custom<PromiseLike<unknown>>(isThenable, "must be a promise")),
		drop: z.optional(z.enum(DROPS, { error: `must be one of ${DROPS.join(", ")}` })),
		response: z.optional(
			z.custom<SandboxFault["response"]>(
				(value) => (typeof value === "object" && value !== null) || typeof value === "function",
				"must be an object, a Response or a function",
			),
		),
	}),
);

function checkedFault(fault: SandboxFault | FaultResponder, index: number): SandboxFault {
	if (typeof fault === "function") return { response: fault };
	if (typeof fault !== "object" || fault === null) {
		throw new ConfigurationError([{ field: `faults[${index}]`, message: "must be an object or a function" }], "fault");
	}
	const checked = faultSchema.safeParse(fault);
	if (!checked.success) {
		const issues = toFieldIssues(checked.error).map((issue) => ({
			...issue,
			field: `faults[${index}].${issue.field}`,
		}));
		throw new ConfigurationError(issues, "fault");
	}
	// The fault as given: its response may be a Response or a function, which are used as they are.
	return fault;
}

/** What running a fault takes from the sandbox: its clock, its signer, and the signing version of an account. */
export interface FaultSetting {
	clock: ControllableClock;
	signer: GatewaySigner;
	/** The signing version of the account a request's fields name, when they name a known one. */
	accountVersion(claimed: Readonly<Record<string, unknown>>): SignVersion | undefined;
}

/** The queue behind `sandbox.faults`, and the requests it holds back right now. */
export class FaultQueue implements SandboxFaults {
	readonly #queues = new Map<string, SandboxFault[]>();
	/** Held requests: their paths, and how to let each go. */
	readonly #held = new Map<() => void, string>();
	#count = 0;
	#closed = false;

	next(path: string, ...faults: readonly (SandboxFault | FaultResponder)[]): void {
		if (typeof path !== "string" || !path.startsWith("/")) {
			throw new ConfigurationError([{ field: "path", message: "must be a path starting with /" }], "fault");
		}
		const checked = faults.map(checkedFault);
		const key = normalPath(path);
		this.#queues.set(key, [...(this.#queues.get(key) ?? []), ...checked]);
		this.#count += checked.length;
	}

	pending(path?: string): number {
		if (path === undefined) return this.#count;
		return this.#queues.get(normalPath(path))?.length ?? 0;
	}

	held(path?: string): number {
		if (path === undefined) return this.#held.size;
		const wanted = normalPath(path);
		return [...this.#held.values()].filter((heldPath) => heldPath === wanted).length;
	}

	clear(): void {
		this.#queues.clear();
		this.#count = 0;
		for (const release of [...this.#held.keys()]) release();
	}

	/** Clears, and from now on lets every request go at once (the sandbox closed). */
	close(): void {
		this.#closed = true;
		this.clear();
	}

	/** The fault for a request to `path` that just arrived, if one is queued (no work when none is). */
	take(path: string): SandboxFault | undefined {
		if (this.#count === 0) return undefined;
		const fault = this.#queues.get(path)?.shift();
		if (fault) this.#count--;
		return fault;
	}

	/**
	 * Handles a request a fault was queued for: holds it, then drops the connection,
	 * responds with the fault's response, or lets the sandbox respond (and cuts that response short).
	 */
	async run<Read, Handled extends SandboxResponse>(
		fault: SandboxFault,
		received: ReceivedEntry,
		read: () => Promise<Read>,
		respond: (read: Read) => Promise<Handled>,
		sandbox: FaultSetting,
		signal: AbortSignal | undefined,
	): Promise<Handled | SandboxResponse> {
		if (fault.drop === "before-reading") {
			await this.#hold(fault, received.path, sandbox.clock, signal);
			return DROPPED;
		}
		const arrived = await read();
		if (!(await this.#hold(fault, received.path, sandbox.clock, signal)) || fault.drop === "after-reading")
			return DROPPED;
		let handled: Promise<Handled> | undefined;
		const sandboxResponse = () => {
			handled ??= respond(arrived);
			return handled;
		};
		const response =
			fault.response === undefined
				? await sandboxResponse()
				: await resolveFaultResponse(fault.response, receivedView(received), tools(sandbox, received, sandboxResponse));
		if (fault.drop === "after-processing") {
			await sandboxResponse();
			return DROPPED;
		}
		return fault.drop === "mid-response" ? { ...response, drop: "mid-body" } : response;
	}

	/**
	 * Holds a request as `fault` says. Resolves true when it may go on, false when it was let go
	 * (the client went away, the sandbox closed, or `clear()`): its connection is then dropped.
	 */
	async #hold(fault: SandboxFault, path: string, clock: ControllableClock, signal?: AbortSignal): Promise<boolean> {
		if (fault.delayMs === undefined && fault.until === undefined && !fault.hang) return !this.#closed;
		if (signal?.aborted || this.#closed) return false;
		let letGo = false;
		const released = Promise.withResolvers<void>();
		const release = () => {
			letGo = true;
			released.resolve();
		};
		this.#held.set(release, path);
		signal?.addEventListener("abort", release, { once: true });
		const { delayMs } = fault;
		let cancelDelay = () => {};
		const delayed = new Promise<void>((resolve) => {
			if (delayMs === undefined) resolve();
			else cancelDelay = clock.schedule(clock.nowMs() + delayMs, resolve);
		});
		const until = Promise.resolve(fault.until).catch(() => undefined);
		await (fault.hang ? released.promise : Promise.race([Promise.all([delayed, until]), released.promise]));
		this.#held.delete(release);
		signal?.removeEventListener("abort", release);
		cancelDelay();
		return !letGo;
	}
}

/** A connection dropped by a fault. */
export const DROPPED: SandboxResponse = { status: 0, headers: {}, body: "", drop: "before-response" };

function tools(
	sandbox: FaultSetting,
	received: ReceivedEntry,
	sandboxResponse: () => Promise<SandboxResponse>,
): FaultTools {
	const signVersion = (received.claimed && sandbox.accountVersion(received.claimed)) || "2.0";
	return {
		sandboxResponse,
		signVersion,
		sealFlat: (fields, version = signVersion) => sandbox.signer.flat(fields, version),
		sealWrapped: (status, message, data, version = signVersion) =>
			sandbox.signer.wrapped(status, message, data, version),
	};
}

/** A fault's response (fixed, a Web `Response`, or built by its responder) as a sandbox response. */
export async function resolveFaultResponse(
	response: FaultResponse | Response | FaultResponder,
	request: ReceivedRequest,
	tools: FaultTools,
): Promise<SandboxResponse> {
	const given = typeof response === "function" ? await response(request, tools) : response;
	if (given instanceof Response) {
		if (given.type === "error") return DROPPED;
		return { status: given.status, headers: Object.fromEntries(given.headers), body: await given.text() };
	}
	const json = given.json !== undefined;
	const headers = { ...(json ? { "content-type": "application/json" } : {}), ...given.headers };
	return { status: given.status ?? 200, headers, body: json ? JSON.stringify(given.json) : (given.body ?? "") };
}
