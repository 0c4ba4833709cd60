import { verifyNotification } from "../../notifications/verify.js";
import { type Command, parse } from "../command.js";
import { CliError, EXIT, readInput, readKeyFile, usageError } from "../io.js";
import { describeFailure } from "./failure.js";

export const verifyIpn: Command = {
	name: "verify-ipn",
	summary: "Verify an IPN body from a file or stdin",
	help: `Usage: merchant-gateway verify-ipn <file|-> --gateway-key <file>

Verifies an IPN body exactly as received (2.0 flat or 2.1 payload form) with
the gateway's public key, and prints the event as JSON: its type (transaction
or refund), its event id, signing version and the verified resource.
Use - to read the body from standard input.

Options:
  -k, --gateway-key <file>  The gateway's public key (PEM)
  -h, --help                Show this help

Exit codes: 0 verified, 1 not verified or malformed, 2 bad usage.`,
	async run(args, io) {
		const { values, positionals } = parse(args, { "gateway-key": { type: "string", short: "k" } });
		if (values.help) {
			io.stdout(`${this.help}\n`);
			return EXIT.ok;
		}
		if (positionals.length !== 1) throw usageError("give exactly one file, or - for standard input");
		const gatewayPublicKey = await readKeyFile(values["gateway-key"], "--gateway-key");
		const body = await readInput(positionals[0] ?? "-", io);
		try {
			io.stdout(`${JSON.stringify(verifyNotification(body, { gatewayPublicKey }), null, 2)}\n`);
			return EXIT.ok;
		} catch (error) {
			throw new CliError(describeFailure(error));
		}
	},
};
