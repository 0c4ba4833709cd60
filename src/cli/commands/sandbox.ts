import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxEvent } from "../../sandbox/options.js";
import { startSandboxServer } from "../../sandbox/server.js";
import { generateKeyPair } from "../../signing/generate.js";
import { type Command, parse } from "../command.js";
import { CliError, type CliIo, EXIT, readKeyFile, usageError } from "../io.js";

export const sandbox: Command = {
	name: "sandbox",
	summary: "Run the gateway sandbox on loopback HTTP",
	help: `Usage: merchant-gateway sandbox [options]

Starts the gateway simulator: the /v2 API, the hosted checkout page and the
3DS page. Prints its URL, the merchant id, the gateway's public key and the
merchant key, then logs every request and IPN delivery until Ctrl+C.
Without --merchant-key a throwaway merchant key pair is generated and its
private key printed (or written with --keys-dir): it is a sandbox key only.

Options:
  -p, --port <n>                  Port. Default: 8080 (0 picks a free one)
      --host <addr>               Interface. Default: 127.0.0.1 (loopback only)
      --allow-non-loopback        Permit a non-loopback --host
  -m, --merchant-id <id>          Default: sandbox-merchant
      --merchant-key <file>       The merchant's PUBLIC key (PEM) to register
      --gateway-private-key <f>   Gateway key pair to sign with (both files, PEM)
      --gateway-public-key <f>    Default: a fresh pair
  -v, --sign-version <v>          2.0 or 2.1. Default: 2.0
      --refund-approval <mode>    auto or manual. Default: auto
      --hpp-only                  Hosted-page processors only (S2S gets the no-provider error)
      --keys-dir <dir>            Write generated keys there instead of printing the private key
      --ipn-time-scale <x>        Multiply IPN retry delays (e.g. 0.01). Default: 1
  -q, --quiet                     Print the banner only, no request log
  -h, --help                      Show this help

Exit codes: 0 stopped by Ctrl+C, 1 could not start, 2 bad usage.`,
	async run(args, io) {
		const { values, positionals } = parse(args, {
			port: { type: "string", short: "p" },
			host: { type: "string" },
			"allow-non-loopback": { type: "boolean" },
			"merchant-id": { type: "string", short: "m" },
			"merchant-key": { type: "string" },
			"gateway-private-key": { type: "string" },
			"gateway-public-key": { type: "string" },
			"sign-version": { type: "string", short: "v" },
			"refund-approval": { type: "string" },
			"hpp-only": { type: "boolean" },
			"keys-dir": { type: "string" },
			"ipn-time-scale": { type: "string" },
			quiet: { type: "boolean", short: "q" },
		});
		if (values.help) {
			io.stdout(`${this.help}\n`);
			return EXIT.ok;
		}
		if (positionals.length > 0) throw usageError(`unexpected argument ${positionals[0]}`);
		const port = values.port === undefined ? 8080 : Number(values.port);
		if (!Number.isInteger(port) || port < 0 || port > 65535)
			throw usageError("--port must be an integer from 0 to 65535");
		const signVersion = values["sign-version"] ?? "2.0";
		if (signVersion !== "2.0" && signVersion !== "2.1") throw usageError("--sign-version must be 2.0 or 2.1");
		const refundApproval = values["refund-approval"] ?? "auto";
		if (refundApproval !== "auto" && refundApproval !== "manual")
			throw usageError("--refund-approval must be auto or manual");
		const timeScale = values["ipn-time-scale"] === undefined ? 1 : Number(values["ipn-time-scale"]);
		if (!Number.isFinite(timeScale) || timeScale < 0) throw usageError("--ipn-time-scale must be a number, 0 or more");
		if (Boolean(values["gateway-private-key"]) !== Boolean(values["gateway-public-key"])) {
			throw usageError("give both --gateway-private-key and --gateway-public-key, or neither");
		}
		const merchantId = values["merchant-id"] ?? "sandbox-merchant";
		const gatewayKeys = values["gateway-private-key"]
			? {
					privateKey: await readKeyFile(values["gateway-private-key"], "--gateway-private-key"),
					publicKey: await readKeyFile(values["gateway-public-key"], "--gateway-public-key"),
				}
			: await generateKeyPair();
		const merchantKeys = values["merchant-key"]
			? { publicKey: await readKeyFile(values["merchant-key"], "--merchant-key") }
			: await generateKeyPair();
		const quiet = values.quiet === true;
		let server: Awaited<ReturnType<typeof startSandboxServer>>;
		try {
			server = await startSandboxServer({
				port,
				host: values.host,
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
			const code = (error as NodeJS.ErrnoException).code;
			throw new CliError(`cannot start the sandbox: ${code ?? (error as Error).message}`);
		}
		await printBanner(
			io,
			server.url,
			merchantId,
			signVersion,
			refundApproval,
			gatewayKeys.publicKey,
			merchantKeys,
			values["keys-dir"],
		);
		await io.stopped;
		await server.close();
		io.stdout("sandbox stopped\n");
		return EXIT.ok;
	},
};

async function printBanner(
	io: CliIo,
	url: string,
	merchantId: string,
	signVersion: string,
	refundApproval: string,
	gatewayPublicKey: string,
	merchantKeys: { publicKey: string; privateKey?: string },
	keysDir: string | undefined,
): Promise<void> {
	const lines = [
		`Merchant Gateway sandbox listening on ${url}`,
		`  API base URL:     ${url}   (POST ${url}/v2/checkout ...)`,
		`  merchant id:      ${merchantId}`,
		`  signing version:  ${signVersion}`,
		`  refund approval:  ${refundApproval}`,
		"  http://127.0.0.1 and http://localhost notification/callback URLs are accepted (sandbox only).",
		"",
	];
	if (keysDir) {
		await mkdir(keysDir, { recursive: true });
		const written: string[] = [];
		const put = async (name: string, text: string, mode: number) => {
			const path = join(keysDir, name);
			try {
				await writeFile(path, text, { mode, flag: "wx" });
			} catch (error) {
				throw new CliError(
					`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? "error"} (files are never overwritten)`,
				);
			}
			written.push(path);
		};
		await put("gateway-public.pem", gatewayPublicKey, 0o644);
		if (merchantKeys.privateKey) {
			await put("merchant-private.pem", merchantKeys.privateKey, 0o600);
			await put("merchant-public.pem", merchantKeys.publicKey, 0o644);
		}
		lines.push(`  keys written: ${written.join(", ")}`, "");
	} else {
		lines.push("Gateway public key (verify answers, IPNs and callbacks with it):", gatewayPublicKey.trim(), "");
		if (merchantKeys.privateKey)
			lines.push(
				"Merchant private key (THROWAWAY sandbox key; sign requests with it):",
				merchantKeys.privateKey.trim(),
				"",
			);
	}
	lines.push(
		"Test cards (expiry 12/30, CVV 123): 4242424242424242 approved, 4000000000001018 declined, 4000000000000036 3DS",
		"  (3DS password 123456 passes, 111111 fails); more in the README and on the hosted page.",
		"Press Ctrl+C to stop.",
		"",
	);
	io.stdout(lines.join("\n"));
}

function formatEvent(event: SandboxEvent): string {
	const time = new Date().toISOString().slice(11, 23);
	switch (event.type) {
		case "request":
			return `${time}  ${event.method} ${event.path} -> ${event.status}${event.detail ? ` (${event.detail})` : ""}`;
		case "transaction":
			return `${time}  transaction ${event.transactionId} is ${event.status} (${event.statusCode})`;
		case "refund":
			return `${time}  refund ${event.refundId} is ${event.status} (${event.statusCode})`;
		case "delivery": {
			const a = event.attempt;
			const next = a.nextAttemptAt ? `, retry at ${a.nextAttemptAt}` : "";
			return `${time}  IPN ${a.eventId} -> ${a.url}: ${a.outcome}${a.detail ? ` (${a.detail})` : ""}, attempt ${a.attempt}${a.duplicate ? " (duplicate)" : ""}${next}`;
		}
		case "error":
			return `${time}  sandbox error: ${event.message}`;
	}
}
