import type { DeprecatedFlag } from "./command.js";
import { usageError } from "./io.js";

/**
 * The flags that mean the same in every command, spelled once here. `-k` is always the private key a command
 * signs with, `-g` the gateway's public key, `-m` the merchant id, `-v` the signing version.
 */
export const FLAGS = {
	key: { type: "string", short: "k" },
	passphrase: { type: "string" },
	gatewayKey: { type: "string", short: "g" },
	merchantId: { type: "string", short: "m" },
	signVersion: { type: "string", short: "v" },
	keysDir: { type: "string" },
	stateDir: { type: "string" },
	json: { type: "boolean" },
} as const;

/** `-k` once named the gateway's public key in the commands that only verify. */
export const OLD_GATEWAY_KEY_SHORT: Record<string, DeprecatedFlag> = {
	"-k": { use: "gateway-key", why: "-k now means --key, the private key a command signs with" },
};

/** The signing version a flag names, or a usage error. */
export function signVersionFlag(value: string | undefined): "2.0" | "2.1" {
	const version = value ?? "2.0";
	if (version !== "2.0" && version !== "2.1") throw usageError("--sign-version must be 2.0 or 2.1");
	return version;
}

/**
 * An http(s) origin given as `flag` (`example` shows one, `what` says whose it is). Only an origin: paths are
 * resolved against it, so a path would be lost.
 */
export function originFlag(flag: string, value: string, example: string, what = "an origin only"): string {
	const url = URL.parse(value);
	if (!url) throw usageError(`${flag} must be an absolute URL such as ${example}`);
	if (url.protocol !== "https:" && url.protocol !== "http:") throw usageError(`${flag} must be an http(s) URL`);
	if (url.pathname !== "/" || url.search || url.hash || url.username || url.password)
		throw usageError(`${flag} must be ${what}, without a path, query, fragment or credentials`);
	return url.origin;
}
