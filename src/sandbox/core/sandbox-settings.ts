import * as z from "zod/mini";
import {
	duration,
	finiteNumber,
	flag,
	integer,
	MAX_DURATION_MS,
	optionalFunction,
	parseOptions,
} from "../../internal/options.js";
import { lazySchema } from "../../schemas/lazy.js";
import { epochOf } from "../books/clock.js";
import { DEFAULT_BASE_URL, type SandboxOptions } from "./sandbox-options.js";

const TIME_RULE = "must be a valid date, ISO 8601 string or epoch milliseconds";
const BASE_URL_RULE =
	"must be an absolute http(s) URL without query or fragment, such as https://sandbox.merchant-gateway.test";
const DELAY_RULE = `must be a number of milliseconds from 0 to ${MAX_DURATION_MS}`;
const STATE_DIR_RULE = "must be a directory path: a non-empty string";

function isBaseUrl(value: string): boolean {
	const url = URL.parse(value);
	return (url?.protocol === "https:" || url?.protocol === "http:") && !url.search && !url.hash;
}

const isTime = (value: unknown) =>
	(value instanceof Date || typeof value === "string" || typeof value === "number") && epochOf(value) !== undefined;

/** The rules and defaults of the sandbox's options (the merchants and keys are checked where they are loaded). */
const sandboxOptions = lazySchema(() =>
	z.object({
		baseUrl: z._default(z.string({ error: BASE_URL_RULE }).check(z.refine(isBaseUrl, BASE_URL_RULE)), DEFAULT_BASE_URL),
		allowLoopbackHttp: flag(true),
		pendingDelayMs: z._default(finiteNumber(0, MAX_DURATION_MS, DELAY_RULE), 5_000),
		now: z.optional(z.custom<Date | string | number>(isTime, TIME_RULE)),
		stateDir: z.optional(
			z
				.string({ error: STATE_DIR_RULE })
				.check(z.refine((dir) => dir.length > 0 && !dir.includes("\0"), STATE_DIR_RULE)),
		),
		ipn: z.prefault(
			z.object({
				retryDelaysMs: z.optional(
					z.array(finiteNumber(0, MAX_DURATION_MS, DELAY_RULE), { error: "must be an array of delays" }),
				),
				timeScale: z._default(finiteNumber(0, Number.MAX_VALUE, "must be a finite number, 0 or more"), 1),
				ackTimeoutMs: duration(30_000),
				duplicates: integer(0, 10, 0),
				fetch: optionalFunction<typeof fetch>(),
			}),
			{},
		),
	}),
);

/** A sandbox's options with defaults applied, every one checked. */
export type SandboxSettings = ReturnType<typeof sandboxSettings>;

/**
 * Checks and completes the sandbox's options; `frozenAt` is the epoch milliseconds a frozen clock stands still at.
 * @throws ConfigurationError listing every wrong option and its rule.
 */
export function sandboxSettings(options: SandboxOptions) {
	const { now, baseUrl, ...settings } = parseOptions(sandboxOptions, options, "sandbox options");
	return { ...settings, baseUrl: baseUrl.replace(/\/+$/, ""), frozenAt: now === undefined ? undefined : epochOf(now) };
}
