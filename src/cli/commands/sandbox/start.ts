import { createPublicKey } from "node:crypto";
import { join } from "node:path";
import { ConfigurationError } from "../../../errors/configuration-error.js";
import {
	type KeyFolder,
	type KeyPair,
	openKeyFolder,
	openStateDir,
	type Sandbox,
	type SandboxOptions,
	type SandboxServer,
	STATE_FILES,
	type StateDir,
	sandboxOnStateDir,
	startSandboxServer,
} from "../../../sandbox/cli-entry.js";
import { generateKeyPair } from "../../../signing/generate.js";
import type { DeprecatedFlag, Parsed } from "../../command.js";
import { FLAGS, originFlag, signVersionFlag } from "../../flags.js";
import { CliError, type CliIo, EXIT, fileProblem, usageError } from "../../io.js";
import { readKeyPairFile, readPublicKeyFile } from "../../keys.js";
import { sandboxRefusal } from "../failure.js";
import { printBanner } from "./banner.js";
import { openControlDir, type ThrowawayKeys } from "./control-dir.js";
import { formatEvent } from "./live-log.js";
import { watchStarter } from "./starter-watch.js";

export const OLD_GATEWAY_PRIVATE_KEY: Record<string, DeprecatedFlag> = {
	"--gateway-private-key": {
		use: "key",
		why: "--key names the private key a command signs with; the sandbox signs as the gateway",
	},
};

/** The flags of `merchant-gateway sandbox [options]`. */
export const START_OPTIONS = {
	port: { type: "string", short: "p" },
	host: { type: "string" },
	"allow-non-loopback": { type: "boolean" },
	"public-url": { type: "string" },
	"merchant-id": FLAGS.merchantId,
	"merchant-key": { type: "string" },
	key: FLAGS.key,
	passphrase: FLAGS.passphrase,
	"gateway-public-key": { type: "string" },
	"sign-version": FLAGS.signVersion,
	"refund-approval": { type: "string" },
	"hpp-only": { type: "boolean" },
	"keys-dir": FLAGS.keysDir,
	"state-dir": FLAGS.stateDir,
	"keep-running": { type: "boolean" },
	"ipn-time-scale": { type: "string" },
	quiet: { type: "boolean", short: "q" },
} as const;

type StartValues = Parsed<typeof START_OPTIONS>["values"];

/** `merchant-gateway sandbox [options]`: starts the sandbox server and runs until stopped. */
export async function startSandbox({ values, positionals }: Parsed<typeof START_OPTIONS>, io: CliIo): Promise<number> {
	if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`);
	const settings = startSettings(values, io);
	const keys = await startKeys(values, settings);
	const launched = await launch(settings, keys, io);
	const stopped = io.untilStopped().then(() => undefined);
	const listening = await announce(launched, settings);
	// Through npx or a script, the starter's end (SIGTERM to npx, a parent killed) must end the sandbox too.
	const starter = settings.keepRunning ? undefined : watchStarter();
	const { server, controlDir } = launched;
	printBanner(io, {
		...settings,
		...keys,
		listening,
		url: server.url,
		controlDir: controlDir.dir,
		temporary: controlDir.temporary,
		resumed: keys.state?.loaded.transactions.size,
	});
	const starterGone = await Promise.race([stopped, starter?.gone ?? stopped]);
	starter?.stop();
	if (starterGone) io.stderr(`merchant-gateway sandbox: ${starterGone}; stopping\n`);
	await launched.stop();
	io.stdout("sandbox stopped\n");
	return EXIT.ok;
}

export type StartSettings = ReturnType<typeof startSettings>;

/** The flags' values, checked (a usage error names the flag and its rule), with their defaults. */
function startSettings(values: StartValues, io: CliIo) {
	const port = values.port === undefined ? 8080 : Number(values.port);
	if (!Number.isInteger(port) || port < 0 || port > 65535)
		throw usageError("--port must be an integer from 0 to 65535");
	const host = values.host ?? "127.0.0.1";
	const publicUrl =
		values["public-url"] === undefined
			? undefined
			: originFlag("--public-url", values["public-url"], "https://sandbox.example.test");
	const signVersion = signVersionFlag(values["sign-version"]);
	const refundApproval = values["refund-approval"] ?? "auto";
	if (refundApproval !== "auto" && refundApproval !== "manual")
		throw usageError("--refund-approval must be auto or manual");
	const timeScale = values["ipn-time-scale"] === undefined ? 1 : Number(values["ipn-time-scale"]);
	if (!Number.isFinite(timeScale) || timeScale < 0) throw usageError("--ipn-time-scale must be a number, 0 or more");
	if (values["gateway-public-key"] !== undefined) {
		io.stderr("merchant-gateway sandbox: --gateway-public-key is deprecated; the public key is derived from --key\n");
		if (values.key === undefined) throw usageError("--gateway-public-key needs --key, the private key it belongs to");
	}
	const stateDir = values["state-dir"];
	if (stateDir !== undefined && values["keys-dir"] !== undefined)
		throw usageError(
			"--keys-dir and --state-dir do not go together: the state directory keeps its keys in " +
				join(stateDir, STATE_FILES.keys),
		);
	return {
		port,
		host,
		publicUrl,
		allowNonLoopback: values["allow-non-loopback"] === true,
		merchantId: values["merchant-id"] ?? "sandbox-merchant",
		signVersion,
		refundApproval,
		hppOnly: values["hpp-only"] === true,
		timeScale,
		stateDir,
		keysDir: values["keys-dir"],
		keepRunning: values["keep-running"] === true,
		quiet: values.quiet === true,
	} as const;
}

/** A sandbox started: its server, its control directory, and `stop`. */
type Launched = Awaited<ReturnType<typeof launch>>;

/**
 * Opens the control directory (the state directory, or a temporary one: where the other commands reach this
 * sandbox), makes the sandbox and starts its server. What was opened is closed again when a step fails, and by
 * `stop`: the server first, then the sandbox and the control directory.
 */
async function launch(settings: StartSettings, keys: StartKeys, io: CliIo) {
	const sandboxOptions: SandboxOptions = {
		gatewayKeys: keys.gateway,
		merchants: [
			{
				merchantId: settings.merchantId,
				publicKey: keys.merchant.publicKey,
				signVersion: settings.signVersion,
				refundApproval: settings.refundApproval,
				...(settings.hppOnly ? { providers: [{ name: "Sandbox Hosted Processor", kind: "hpp" as const }] } : {}),
			},
		],
		ipn: { timeScale: settings.timeScale },
		onEvent: settings.quiet ? undefined : (event) => io.stdout(`${formatEvent(event)}\n`),
	};
	const { port, host, publicUrl, allowNonLoopback } = settings;
	const controlDir = await openControlDir(settings.stateDir, keys).catch(async (error: unknown) => {
		await keys.state?.close();
		throw error;
	});
	let sandbox: Sandbox | undefined;
	let server: SandboxServer;
	try {
		// On a state directory the sandbox is made here, on the directory opened above; otherwise the server makes it.
		sandbox = keys.state ? await sandboxOnStateDir(sandboxOptions, keys.state) : undefined;
		const served = sandbox ? { sandbox } : sandboxOptions;
		server = await startSandboxServer({
			port,
			host,
			publicUrl,
			allowNonLoopback,
			...served,
			controlToken: controlDir.token,
		});
	} catch (error) {
		await (sandbox ? sandbox.close() : keys.state?.close());
		await controlDir.close();
		throw new CliError(startFailure(error, host, port));
	}
	const stop = async () => {
		await server.close();
		await sandbox?.close();
		await controlDir.close();
	};
	return { server, controlDir, stop };
}

/**
 * Writes where the sandbox listens into its control directory, for the other commands; the address returned is
 * the one this machine reaches. Stops the sandbox when that cannot be written.
 */
async function announce(launched: Launched, settings: StartSettings): Promise<string> {
	const { server, controlDir } = launched;
	const { host, merchantId, signVersion } = settings;
	const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
	const anyAddress: Record<string, string> = { "0.0.0.0": "127.0.0.1", "[::]": "[::1]" };
	const listening = `http://${anyAddress[shownHost] ?? shownHost}:${server.port}`;
	const linksAt = server.url === listening ? undefined : server.url;
	try {
		await controlDir.announce({ url: listening, publicUrl: linksAt, pid: process.pid, merchantId, signVersion });
	} catch (error) {
		await launched.stop();
		throw new CliError(`cannot write ${join(controlDir.dir, STATE_FILES.running)}: ${fileProblem(error)}`);
	}
	return listening;
}

/** The keys the sandbox starts with, and where they live. */
export interface StartKeys {
	gateway: KeyPair;
	merchant: ThrowawayKeys["merchant"];
	/** The key files written by this start. */
	written: string[];
	/** The state directory, opened (and locked) for this sandbox. */
	state: StateDir | undefined;
}

/**
 * The gateway and merchant keys: read from --key and --merchant-key (--gateway-public-key checked against
 * --key), reused from a folder of key files (a state directory's, or --keys-dir), and generated when neither
 * has them (then saved to the folder). Opening a state directory also takes its lock, before any key is written.
 */
async function startKeys(values: StartValues, { keysDir, stateDir }: StartSettings): Promise<StartKeys> {
	const gatewayKeys = values.key ? await readKeyPairFile("--key", values.key, values.passphrase) : undefined;
	if (values["gateway-public-key"] !== undefined && gatewayKeys)
		await checkSamePublicKey(values["gateway-public-key"], gatewayKeys.publicKey, values.key ?? "");
	const merchantKey = values["merchant-key"]
		? { publicKey: await readPublicKeyFile("--merchant-key", values["merchant-key"]) }
		: undefined;
	const merchant = merchantKey ?? "generate";
	try {
		if (stateDir !== undefined) {
			const state = await openStateDir(stateDir, { gatewayKeys, merchant });
			return { ...folderKeys(state.keys), state };
		}
		if (keysDir !== undefined) {
			const folder = await openKeyFolder(keysDir, {
				field: "keysDir",
				gatewayKeys,
				merchant,
				generate: generateKeyPair,
			});
			return { ...folderKeys(folder), state: undefined };
		}
	} catch (error) {
		throw sandboxRefusal(error);
	}
	const gateway = gatewayKeys ?? (await generateKeyPair());
	return { gateway, merchant: merchantKey ?? (await generateKeyPair()), written: [], state: undefined };
}

function folderKeys({ gateway, merchant, written }: KeyFolder): Omit<StartKeys, "state"> {
	// Asked for ("generate" or --merchant-key), so the folder always yields a merchant key.
	if (!merchant) throw new Error("the key folder gave no merchant key");
	return { gateway, merchant, written };
}

async function checkSamePublicKey(path: string, derived: string, keyPath: string): Promise<void> {
	const given = await readPublicKeyFile("--gateway-public-key", path);
	const der = (pem: string) => createPublicKey(pem).export({ format: "der", type: "spki" });
	if (!der(given).equals(der(derived)))
		throw new CliError(`the --gateway-public-key file ${path} is not the public key of the --key file ${keyPath}`);
}

function startFailure(error: unknown, host: string, port: number): string {
	const code = (error as NodeJS.ErrnoException).code;
	if (code === "EADDRINUSE")
		return `port ${port} on ${host} is in use (EADDRINUSE): pick another --port, or --port 0 for a free one`;
	if (code === "EACCES") return `cannot listen on port ${port} (EACCES): pick another --port`;
	if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
		return `--host ${host} is not an address of this machine (${code})`;
	if (error instanceof ConfigurationError && error.issues.some((issue) => issue.field === "host"))
		return `--host ${host} is not a loopback address: add --allow-non-loopback to listen there`;
	return `cannot start the sandbox: ${code ?? (error as Error).message}`;
}
