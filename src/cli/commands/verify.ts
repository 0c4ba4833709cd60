import { decodeCallback } from "../../notifications/message/callback.js";
import { verifyNotification } from "../../notifications/message/verify.js";
import { type Command, defineCommand } from "../command.js";
import { FLAGS, OLD_GATEWAY_KEY_SHORT } from "../flags.js";
import { INPUT_LIMIT_HELP, readInput } from "../input.js";
import { type CliIo, EXIT, usageError } from "../io.js";
import { readPublicKeyFile } from "../keys.js";
import { orFailure } from "./failure.js";

/** A command that verifies one input with the gateway's public key and prints what it decodes as JSON. */
interface VerifyingCommand extends Pick<Command, "name" | "summary"> {
	/** Its argument, as the usage line names it. */
	argument: string;
	/** What the command does, for --help. */
	about: string;
	/** The usage error when not given exactly one argument. */
	oneArgument: string;
	/** The input the argument names. */
	read(argument: string, io: CliIo): Promise<string>;
	verify(input: string, gatewayPublicKey: string): unknown;
}

/** The command: its --help, its one argument and --gateway-key, and the verified result or the failure. */
function verifyingCommand(command: VerifyingCommand): Command {
	return defineCommand({
		name: command.name,
		summary: command.summary,
		help: `Usage: merchant-gateway ${command.name} ${command.argument} --gateway-key <file>

${command.about}

${INPUT_LIMIT_HELP}

Options:
  -g, --gateway-key <file>    The gateway's public key (PEM or base64 DER)
  -h, --help                  Show this help

Exit codes: 0 verified, 1 not verified or malformed, 2 bad usage, 130 Ctrl+C.`,
		options: { "gateway-key": FLAGS.gatewayKey },
		deprecated: OLD_GATEWAY_KEY_SHORT,
		async run({ values, positionals }, io) {
			if (positionals.length !== 1) throw usageError(command.oneArgument);
			const gatewayPublicKey = await readPublicKeyFile("--gateway-key", values["gateway-key"]);
			const input = await command.read(positionals[0] ?? "-", io);
			const verified = orFailure(() => command.verify(input, gatewayPublicKey));
			io.stdout(`${JSON.stringify(verified, null, 2)}\n`);
			return EXIT.ok;
		},
	});
}

export const decodeCallbackCommand = verifyingCommand({
	name: "decode-callback",
	summary: "Verify and decode a callback redirect URL",
	argument: "<url|->",
	about: `Verifies the signature of a callback redirect ({callbackUrl}?payload=..., 2.0 or
2.1) with the gateway's public key and prints the decoded fields as JSON:
status, transactionId, ref, amount, currency. Quote the URL in your shell, or
give - and the URL on standard input.`,
	oneArgument: "give exactly one callback URL, or - for standard input",
	read: async (given, io) => (given === "-" ? (await readInput("-", io, "the callback URL")).trim() : given),
	verify: (url, gatewayPublicKey) => decodeCallback(url, { gatewayPublicKey }),
});

export const verifyIpn = verifyingCommand({
	name: "verify-ipn",
	summary: "Verify an IPN body from a file or stdin",
	argument: "<file|->",
	about: `Verifies an IPN body exactly as received (2.0 flat or 2.1 payload form) with
the gateway's public key, and prints the event as JSON: its type (transaction
or refund), its event id, signing version and the verified resource.
Use - to read the body from standard input.`,
	oneArgument: "give exactly one file, or - for standard input",
	read: (path, io) => readInput(path, io, "the IPN body"),
	verify: (body, gatewayPublicKey) => verifyNotification(body, { gatewayPublicKey }),
});
