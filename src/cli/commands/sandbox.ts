import { createPublicKey } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { CONTROL_FILES } from "../../sandbox/control/control-files.js";
import { type SandboxServer, startSandboxServer } from "../../sandbox/http-server.js";
import { generateKeyPair } from "../../signing/generate.js";
import { type Command, type DeprecatedFlag, parse } from "../command.js";
import { FLAGS, signVersionFlag } from "../flags.js";
import { CliError, EXIT, fileProblem, usageError } from "../io.js";
import { readKeyPairFile, readPublicKeyFile } from "../keys.js";
import { printBanner } from "./sandbox/banner.js";
import { openControlDir } from "./sandbox/control-dir.js";
import { CONTROL_COMMANDS, CONTROL_COMMANDS_HELP } from "./sandbox/index.js";
import { formatEvent } from "./sandbox/live-log.js";
import { openStateKeys, STATE_KEYS } from "./sandbox/state-dir.js";

/** The file names `--keys-dir` holds, which `checkout create --keys-dir` reads back. */
export const KEY_FILES = {
	gatewayPublic: "gateway-public.pem",
	merchantPrivate: "merchant-private.pem",
	merchantPublic: "merchant-public.pem",
} as const;

const OLD_GATEWAY_PRIVATE_KEY: Record<string, DeprecatedFlag> = {
	"--gateway-private-key": {
		use: "key",
		why: "--key names the private key a command signs with; the sandbox signs as the gateway",
	},
};

export const sandbox: Command = {
	name: "sandbox",
	summary: "Run the gateway sandbox on loopback HTTP",
	help: `Usage: merchant-gateway sandbox [options]

Starts the gateway simulator: the /v2 API, the hosted checkout page and the
3DS page. Prints its URL, the merchant id, the gateway's public key and the
merchant key, then logs every request and IPN delivery until Ctrl+C (or
SIGTERM), when it closes its connections and exits 0.
Without --merchant-key a throwaway merchant key pair is generated and its
private key printed (or written with --keys-dir): it is a sandbox key only.

Options:
  -p, --port <n>              Port. Default: 8080 (0 picks a free one)
      --host <addr>           Interface. Default: 127.0.0.1 (loopback only)
      --allow-non-loopback    Permit a non-loopback --host
      --public-url <url>      The origin the buyer's browser and your server reach
                              the sandbox at (a proxy or tunnel, such as
                              https://sandbox.example.test): every link it prints
                              or responds with uses it. Default: the listening address
  -m, --merchant-id <id>      Default: sandbox-merchant
      --merchant-key <file>   The merchant's PUBLIC key (PEM) to register
  -k, --key <file>            The gateway's private key to sign with (PEM; its
                              public key is derived). Default: a fresh pair
      --passphrase <p>        Passphrase of an encrypted --key
  -v, --sign-version <v>      2.0 or 2.1. Default: 2.0
      --refund-approval <m>   auto or manual. Default: auto
      --hpp-only              Hosted-page processors only (S2S gets the no-provider error)
      --keys-dir <dir>        Write the keys there (${KEY_FILES.gatewayPublic}, and
                              ${KEY_FILES.merchantPrivate} when generated) instead of
                              printing them; checkout create --keys-dir reads them
      --state-dir <dir>       Keep the keys (in <dir>/${STATE_KEYS.dir}) and the control
                              credential there, made on the first start and reused
                              after; the commands below and checkout create take
                              the same --state-dir. Default: a temporary directory
      --ipn-time-scale <x>    Multiply IPN retry delays (e.g. 0.01). Default: 1
  -q, --quiet                 Print the banner only, no request log
  -h, --help                  Show this help

Deprecated: --gateway-private-key (use --key); --gateway-public-key (derived from
--key now; when given it must match).

Commands that drive a running sandbox (each takes --state-dir <dir>, and
--json for JSON; see merchant-gateway sandbox <command> --help):
${CONTROL_COMMANDS_HELP}

Exit codes: 0 stopped by Ctrl+C or SIGTERM, 1 could not start, 2 bad usage.`,
	async run(args, io) {
		const control = CONTROL_COMMANDS.find((command) => command.name === args[0]);
		if (control) return control.run(args.slice(1), io);
		const { values, positionals } = parse(
			args,
			{
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
				"state-dir": { type: "string" },
				"ipn-time-scale": { type: "string" },
				quiet: { type: "boolean", short: "q" },
			},
			{ command: this.name, io, deprecated: OLD_GATEWAY_PRIVATE_KEY },
		);
		if (values.help) {
			io.stdout(`${this.help}\n`);
			return EXIT.ok;
		}
		if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`);
		const port = values.port === undefined ? 8080 : Number(values.port);
		if (!Number.isInteger(port) || port < 0 || port > 65535)
			throw usageError("--port must be an integer from 0 to 65535");
		const host = values.host ?? "127.0.0.1";
		const publicUrl = values["public-url"] === undefined ? undefined : publicUrlFlag(values["public-url"]);
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
		const merchantId = values["merchant-id"] ?? "sandbox-merchant";
		const stateDir = values["state-dir"];
		const ownKeys = (["key", "merchant-key", "keys-dir"] as const).filter((flag) => values[flag] !== undefined);
		if (stateDir !== undefined && ownKeys.length > 0)
			throw usageError(`--state-dir keeps its own keys in <dir>/${STATE_KEYS.dir}: drop --${ownKeys.join(", --")}`);
		const stateKeys = stateDir === undefined ? undefined : await openStateKeys(stateDir);
		const gatewayKeys =
			stateKeys?.gatewayKeys ??
			(values.key ? await readKeyPairFile("--key", values.key, values.passphrase) : await generateKeyPair());
		if (values["gateway-public-key"] !== undefined)
			await checkSamePublicKey(values["gateway-public-key"], gatewayKeys.publicKey, values.key ?? "");
		const merchantKeys: { publicKey: string; privateKey?: string } =
			stateKeys?.merchantKeys ??
			(values["merchant-key"]
				? { publicKey: await readPublicKeyFile("--merchant-key", values["merchant-key"]) }
				: await generateKeyPair());
		const keysDir = values["keys-dir"];
		const written = keysDir ? await writeKeys(keysDir, gatewayKeys.publicKey, merchantKeys) : stateKeys?.written;
		const controlDir = await openControlDir(stateDir, { gatewayPublicKey: gatewayKeys.publicKey, merchantKeys });
		const quiet = values.quiet === true;
		let server: SandboxServer;
		try {
			server = await startSandboxServer({
				port,
				host,
				publicUrl,
				allowNonLoopback: values["allow-non-loopback"] === true,
				gatewayKeys,
				merchants: [
					{
						merchantId,
						publicKey: merchantKeys.publicKey,
						signVersion,
						refundApproval,
						...(values["hpp-only"] ? { providers: [{ name: "Sandbox Hosted Processor", kind: "hpp" as const }] } : {}),
					},
				],
				ipn: { timeScale },
				onEvent: quiet ? undefined : (event) => io.stdout(`${formatEvent(event)}\n`),
				controlToken: controlDir.token,
			});
		} catch (error) {
			await controlDir.close();
			throw new CliError(startFailure(error, host, port));
		}
		const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
		// The address this machine reaches: what the other commands use.
		const anyAddress: Record<string, string> = { "0.0.0.0": "127.0.0.1", "[::]": "[::1]" };
		const listening = `http://${anyAddress[shownHost] ?? shownHost}:${server.port}`;
		const stopped = io.untilStopped();
		const linksAt = server.url === listening ? undefined : server.url;
		try {
			await controlDir.announce({ url: listening, publicUrl: linksAt, pid: process.pid, merchantId, signVersion });
		} catch (error) {
			await server.close();
			await controlDir.close();
			throw new CliError(`cannot write ${join(controlDir.dir, CONTROL_FILES.running)}: ${fileProblem(error)}`);
		}
		printBanner(io, {
			listening,
			url: server.url,
			merchantId,
			signVersion,
			refundApproval,
			gatewayPublicKey: gatewayKeys.publicKey,
			merchantKeys,
			keysDir,
			controlDir: controlDir.dir,
			temporary: controlDir.temporary,
			written: written ?? [],
		});
		await stopped;
		await server.close();
		await controlDir.close();
		io.stdout("sandbox stopped\n");
		return EXIT.ok;
	},
};

/** --public-url: an http(s) origin. Links are made by resolving paths against it, so a path would be lost. */
function publicUrlFlag(value: string): string {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw usageError("--public-url must be an absolute URL such as https://sandbox.example.test");
	}
	if (url.protocol !== "https:" && url.protocol !== "http:") throw usageError("--public-url must be an http(s) URL");
	if (url.username || url.password) throw usageError("--public-url must not carry credentials");
	if (url.pathname !== "/" || url.search || url.hash)
		throw usageError("--public-url must be an origin only, without a path, query or fragment");
	return url.origin;
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

/** Writes the keys before the server starts, so a write failure leaves nothing running. Never overwrites. */
async function writeKeys(
	keysDir: string,
	gatewayPublicKey: string,
	merchantKeys: { publicKey: string; privateKey?: string },
): Promise<string[]> {
	try {
		await mkdir(keysDir, { recursive: true });
	} catch (error) {
		throw new CliError(`cannot create the --keys-dir directory ${keysDir}: ${fileProblem(error)}`);
	}
	const files: [string, string, number][] = [[KEY_FILES.gatewayPublic, gatewayPublicKey, 0o644]];
	if (merchantKeys.privateKey)
		files.push(
			[KEY_FILES.merchantPrivate, merchantKeys.privateKey, 0o600],
			[KEY_FILES.merchantPublic, merchantKeys.publicKey, 0o644],
		);
	const written: string[] = [];
	for (const [name, text, mode] of files) {
		const path = join(keysDir, name);
		try {
			await writeFile(path, text, { mode, flag: "wx" });
		} catch (error) {
			throw new CliError(`cannot write ${path}: ${fileProblem(error)} (key files are never overwritten)`);
		}
		written.push(path);
	}
	return written;
}
