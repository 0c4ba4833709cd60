import { decodeCallback } from "../../notifications/message/callback.js";
import { type Command, parse } from "../command.js";
import { FLAGS, OLD_GATEWAY_KEY_SHORT } from "../flags.js";
import { INPUT_LIMIT_HELP, readInput } from "../input.js";
import { CliError, EXIT, usageError } from "../io.js";
import { readPublicKeyFile } from "../keys.js";
import { describeFailure } from "./failure.js";

export const decodeCallbackCommand: Command = {
	name: "decode-callback",
	summary: "Verify and decode a callback redirect URL",
	help: `Usage: merchant-gateway decode-callback <url|-> --gateway-key <file>

Verifies the signature of a callback redirect ({callbackUrl}?payload=..., 2.0 or
2.1) with the gateway's public key and prints the decoded fields as JSON:
status, transactionId, ref, amount, currency. Quote the URL in your shell, or
give - and the URL on standard input.

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
		if (positionals.length !== 1) throw usageError("give exactly one callback URL, or - for standard input");
		const gatewayPublicKey = await readPublicKeyFile("--gateway-key", values["gateway-key"]);
		const given = positionals[0] ?? "";
		const url = given === "-" ? (await readInput("-", io, "the callback URL")).trim() : given;
		try {
			const result = decodeCallback(url, { gatewayPublicKey });
			io.stdout(`${JSON.stringify(result, null, 2)}\n`);
			return EXIT.ok;
		} catch (error) {
			throw new CliError(describeFailure(error));
		}
	},
};
