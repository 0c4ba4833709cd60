import { createPublicKey } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigurationError } from "../../../errors/configuration-error.js";
import { type SandboxServer, startSandboxServer } from "../../../sandbox/http-server.js";
import { KEY_FILES } from "../../../sandbox/persistence/key-files.js";
import { generateKeyPair } from "../../../signing/generate.js";
import { type DeprecatedFlag, parse } from "../../command.js";
import { FLAGS, signVersionFlag } from "../../flags.js";
import { CliError, type CliIo, EXIT, fileProblem, usageError } from "../../io.js";
import { readKeyPairFile, readPublicKeyFile } from "../../keys.js";
import { printBanner } from "./banner.js";
import { formatEvent } from "./live-log.js";

const OLD_GATEWAY_PRIVATE_KEY: Record<string, DeprecatedFlag> = {
	"--gateway-private-key": {
		use: "key",
		why: "--key names the private key a command signs with; the sandbox signs as the gateway",
	},
};

/** `merchant-gateway sandbox [options]`: starts the sandbox server and runs until stopped. */
export async function startSandbox(args: string[], io: CliIo, help: string): Promise<number> {
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
			"ipn-time-scale": { type: "string" },
			quiet: { type: "boolean", short: "q" },
		},
		{ command: "sandbox", io, deprecated: OLD_GATEWAY_PRIVATE_KEY },
	);
	if (values.help) {
		io.stdout(`${help}\n`);
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
	const gatewayKeys = values.key
		? await readKeyPairFile("--key", values.key, values.passphrase)
		: await generateKeyPair();
	if (values["gateway-public-key"] !== undefined)
		await checkSamePublicKey(values["gateway-public-key"], gatewayKeys.publicKey, values.key ?? "");
	const merchantKeys = values["merchant-key"]
		? { publicKey: await readPublicKeyFile("--merchant-key", values["merchant-key"]) }
		: await generateKeyPair();
	const keysDir = values["keys-dir"];
	const written = keysDir ? await writeKeys(keysDir, gatewayKeys.publicKey, merchantKeys) : undefined;
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
		});
	} catch (error) {
		throw new CliError(startFailure(error, host, port));
	}
	const shownHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
	const stopped = io.untilStopped();
	printBanner(io, {
		listening: `http://${shownHost}:${server.port}`,
		url: server.url,
		merchantId,
		signVersion,
		refundApproval,
		gatewayPublicKey: gatewayKeys.publicKey,
		merchantKeys,
		keysDir,
		written,
	});
	await stopped;
	await server.close();
	io.stdout("sandbox stopped\n");
	return EXIT.ok;
}

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
