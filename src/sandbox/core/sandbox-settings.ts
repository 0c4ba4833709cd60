import { ConfigurationError } from "../../errors/configuration-error.js";
import type { FieldIssue } from "../../errors/request-validation-error.js";
import { epochOf } from "../books/clock.js";
import type { IpnSettings } from "../ipn/notifier.js";
import { DEFAULT_BASE_URL, type SandboxIpnOptions, type SandboxOptions } from "./sandbox-options.js";

/** A sandbox's options with defaults applied, every one checked. */
export interface SandboxSettings {
	baseUrl: string;
	allowLoopbackHttp: boolean;
	pendingDelayMs: number;
	/** Epoch milliseconds the clock stands still at, when frozen. */
	frozenAt: number | undefined;
	ipn: IpnSettings;
	stateDir: string | undefined;
}

const TIME_RULE = "must be a valid date, ISO 8601 string or epoch milliseconds";

/** Checks and completes the sandbox's options. @throws ConfigurationError listing every wrong option and its rule. */
export function sandboxSettings(options: SandboxOptions): SandboxSettings {
	const issues: FieldIssue[] = [];
	const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
	if (!isBaseUrl(baseUrl)) {
		const example = "such as https://sandbox.merchant-gateway.test";
		issues.push({ field: "baseUrl", message: `must be an absolute http(s) URL without query or fragment, ${example}` });
	}
	const pendingDelayMs = options.pendingDelayMs ?? 5_000;
	if (!(Number.isFinite(pendingDelayMs) && pendingDelayMs >= 0)) {
		issues.push({ field: "pendingDelayMs", message: "must be a number of milliseconds, 0 or more" });
	}
	const frozenAt = options.now === undefined ? undefined : epochOf(options.now);
	if (options.now !== undefined && frozenAt === undefined) issues.push({ field: "now", message: TIME_RULE });
	const ipn = ipnSettings(options.ipn ?? {}, issues);
	const { stateDir } = options;
	if (stateDir !== undefined && !(typeof stateDir === "string" && stateDir.length > 0 && !stateDir.includes("\0")))
		issues.push({ field: "stateDir", message: "must be a directory path: a non-empty string" });
	if (issues.length > 0) throw new ConfigurationError(issues, "sandbox options");
	return {
		baseUrl: baseUrl.replace(/\/+$/, ""),
		allowLoopbackHttp: options.allowLoopbackHttp ?? true,
		pendingDelayMs,
		frozenAt,
		ipn,
		stateDir,
	};
}

function isBaseUrl(value: string): boolean {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		return false;
	}
	return (url.protocol === "https:" || url.protocol === "http:") && !url.search && !url.hash;
}

function ipnSettings(options: SandboxIpnOptions, issues: FieldIssue[]): IpnSettings {
	const settings: IpnSettings = {
		retryDelaysMs: options.retryDelaysMs,
		timeScale: options.timeScale ?? 1,
		ackTimeoutMs: options.ackTimeoutMs ?? 30_000,
		duplicates: options.duplicates ?? 0,
		fetch: options.fetch,
	};
	if (!(Number.isFinite(settings.timeScale) && settings.timeScale >= 0)) {
		issues.push({ field: "ipn.timeScale", message: "must be a finite number, 0 or more" });
	}
	if (settings.retryDelaysMs?.some((delay) => !(Number.isFinite(delay) && delay >= 0))) {
		issues.push({ field: "ipn.retryDelaysMs", message: "must hold finite delays of 0 ms or more" });
	}
	if (!(Number.isInteger(settings.ackTimeoutMs) && settings.ackTimeoutMs >= 1)) {
		issues.push({ field: "ipn.ackTimeoutMs", message: "must be a positive whole number of milliseconds" });
	}
	const { duplicates } = settings;
	if (!(Number.isInteger(duplicates) && duplicates >= 0 && duplicates <= 10)) {
		issues.push({ field: "ipn.duplicates", message: "must be a whole number from 0 to 10" });
	}
	return settings;
}
