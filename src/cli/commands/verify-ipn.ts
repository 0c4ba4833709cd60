import { verifyNotification } from "../../notifications/message/verify.js";
import { type Command, parse } from "../command.js";
import { FLAGS, OLD_GATEWAY_KEY_SHORT } from "../flags.js";
import { INPUT_LIMIT_HELP, readInput } from "../input.js";
import { CliError, EXIT, usageError } from "../io.js";
import { readPublicKeyFile } from "../keys.js";
import { describeFailure } from "./failure.js";

export const verifyIpn: Command = {
	name: "verify-ipn",
	summary: "Verify an IPN body from a file or stdin",
	help: `Usage: merchant-gateway verify-ipn <file|-> --gateway-key <file>

Verifies an IPN body exactly as received (2.0 flat or 2.1 payload form) with
the gateway's public key, and prints the event as JSON: its type (transaction
or refund), its event id, signing version and the verified resource.
Use - to read the body from standard input.

${INPUT_LIMIT_HELP}

Options:
  -g, --gateway-key <file>    The gateway's public key (PEM or base64 DER)
  -h, --help                  Show this help

Exit codes: 0 verified, 1 not verified or malformed, 2 bad usage, 130 Ctrl+C.`,
	async run(args, io) {
		const { values, positionals } = parse(
			args,
			{ "gateway-key": FLAGS.gatewayKey },
			{ command: this.name, io, deprecated: OLD_GATEWAY_KEY_SHORT },
		);
		if (values.help) {
			io.stdout(`${this.help}\n`);
			return EXIT.ok;
		}
		if (positionals.length !== 1) throw usageError("give exactly one file, or - for standard input");
		const gatewayPublicKey = await readPublicKeyFile("--gateway-key", values["gateway-key"]);
		const body = await readInput(positionals[0] ?? "-", io, "the IPN body");
		try {
			io.stdout(`${JSON.stringify(verifyNotification(body, { gatewayPublicKey }), null, 2)}\n`);
			return EXIT.ok;
		} catch (error) {
			throw new CliError(describeFailure(error));
		}
	},
};
