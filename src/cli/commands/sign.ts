import { canonicalString } from "../../signing/canonical.js";
import { toPrivateKey } from "../../signing/keys.js";
import { parseJsonObject } from "../../signing/open.js";
import { type SignVersion, signText } from "../../signing/seal.js";
import { type Command, parse } from "../command.js";
import { CliError, EXIT, readInput, readKeyFile, usageError } from "../io.js";
import { describeFailure } from "./failure.js";

export const sign: Command = {
	name: "sign",
	summary: "Sign a JSON message and show the exact string that was signed",
	help: `Usage: merchant-gateway sign <file|-> --key <file> [--sign-version 2.0|2.1] [--message]

For debugging signature mismatches. Reads a JSON object and prints the string
the signature covers, then the signature:
  2.0  the canonical string (keys sorted, strings trimmed, numbers as strings,
       PHP json_encode escaping); a "signature" field in the input is ignored
  2.1  the payload text: compact JSON of the fields, or the input's "payload"
       string as is when the input is already a 2.1 message
Compare the string with the one your code signs: the first difference is the bug.

Options:
  -k, --key <file>            The signer's private key (PEM)
  -v, --sign-version <v>      2.0 or 2.1. Default: 2.0
  -m, --message               Print the complete signed message as JSON instead
  -h, --help                  Show this help

Exit codes: 0 signed, 1 unreadable input or key, 2 bad usage.`,
	async run(args, io) {
		const { values, positionals } = parse(args, {
			key: { type: "string", short: "k" },
			"sign-version": { type: "string", short: "v" },
			message: { type: "boolean", short: "m" },
		});
		if (values.help) {
			io.stdout(`${this.help}\n`);
			return EXIT.ok;
		}
		if (positionals.length !== 1) throw usageError("give exactly one file, or - for standard input");
		const version = values["sign-version"] ?? "2.0";
		if (version !== "2.0" && version !== "2.1") throw usageError("--sign-version must be 2.0 or 2.1");
		const keyText = await readKeyFile(values.key, "--key");
		const input = await readInput(positionals[0] ?? "-", io);
		try {
			const key = toPrivateKey(keyText);
			const fields = parseJsonObject(input, "input");
			const { text, message } = signedText(fields, version);
			const signature = signText(text, key);
			if (values.message) {
				io.stdout(`${JSON.stringify(version === "2.1" ? { payload: text, signVersion: "2.1", signature } : { ...message, signature }, null, 2)}\n`);
			} else {
				io.stdout(`signVersion: ${version}\n${version === "2.1" ? "payload" : "canonical string"}:\n${text}\nsignature:\n${signature}\n`);
			}
			return EXIT.ok;
		} catch (error) {
			throw new CliError(describeFailure(error));
		}
	},
};

function signedText(fields: Record<string, unknown>, version: SignVersion): { text: string; message: Record<string, unknown> } {
	if (version === "2.1") {
		if (typeof fields.payload === "string") return { text: fields.payload, message: fields };
		const { signature: _s, signVersion: _v, ...rest } = fields;
		return { text: JSON.stringify(rest), message: rest };
	}
	const { signature: _s, ...rest } = fields;
	return { text: canonicalString(rest), message: rest };
}
