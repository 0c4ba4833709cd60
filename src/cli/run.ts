import { SDK_VERSION } from "../internal/version.js";
import type { Command } from "./command.js";
import { checkout } from "./commands/checkout.js";
import { doctor } from "./commands/doctor.js";
import { keygen } from "./commands/keygen.js";
import { sandbox } from "./commands/sandbox/command.js";
import { sign } from "./commands/sign.js";
import { decodeCallbackCommand, verifyIpn } from "./commands/verify.js";
import { CliError, type CliIo, EXIT } from "./io.js";

const commands: readonly Command[] = [sandbox, checkout, keygen, decodeCallbackCommand, verifyIpn, sign, doctor];

const usage = `Usage: merchant-gateway <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(16)} ${c.summary}`).join("\n")}

Run merchant-gateway <command> --help for a command's options.
Flags mean the same in every command: -k/--key the private key it signs with,
--passphrase that key's passphrase, -g/--gateway-key the gateway's public key,
-m/--merchant-id, -v/--sign-version, --keys-dir the directory of key files.
Exit codes: 0 success, 1 failure (verification, existing file, bad input), 2 bad usage,
130 stopped by Ctrl+C, 143 stopped by SIGTERM (the process ends by the signal, which
shells report so; the sandbox exits 0 when stopped).`;

/** Runs one CLI invocation and returns its exit code. Errors go to stderr; nothing is thrown. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
	const [name, ...args] = argv;
	if (name === undefined) {
		io.stderr(`${usage}\n`);
		return EXIT.usage;
	}
	if (name === "--help" || name === "-h" || name === "help") {
		io.stdout(`${usage}\n`);
		return EXIT.ok;
	}
	if (name === "--version" || name === "-V") {
		io.stdout(`${SDK_VERSION}\n`);
		return EXIT.ok;
	}
	const command = commands.find((c) => c.name === name);
	if (!command) {
		io.stderr(`merchant-gateway: unknown command "${name}"\n\n${usage}\n`);
		return EXIT.usage;
	}
	try {
		return await command.run(args, io);
	} catch (error) {
		if (error instanceof CliError) {
			io.stderr(`merchant-gateway ${command.name}: ${error.message}\n`);
			return error.exitCode;
		}
		io.stderr(
			`merchant-gateway ${command.name}: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`,
		);
		return EXIT.failure;
	}
}
