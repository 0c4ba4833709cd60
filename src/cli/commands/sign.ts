import { canonicalString } from "../../signing/canonical.js";
import type { PrivateKey } from "../../signing/keys.js";
import { parseJsonObject } from "../../signing/open.js";
import { type SignVersion, signText } from "../../signing/seal.js";
import { type Command, parse } from "../command.js";
import { FLAGS, signVersionFlag } from "../flags.js";
import { CliError, EXIT, readInput, usageError } from "../io.js";
import { readPrivateKeyFile } from "../keys.js";
import { explainSignedString } from "./explain.js";
import { describeFailure } from "./failure.js";

export const sign: Command = {
	name: "sign",
	summary: "Sign a JSON message and show the exact string that was signed",
	help: `Usage: merchant-gateway sign <file|-> --key <file> [--passphrase <p>] [--sign-version 2.0|2.1] [--message]
       merchant-gateway sign --explain <file|-> [--sign-version 2.0|2.1] [--key <file>]

For debugging signature mismatches. Reads a JSON object and prints the string
the signature covers, then the signature:
  2.0  the gateway's reference form (D3): the top-level "signature" removed;
       top-level keys in PHP's natural order, nested objects in their own order;
       every leaf a string as PHP's trim() makes it (numbers as strings, floats
       at 14 digits, true -> "1", false and null -> ""); objects keyed 0..n-1
       and {} as lists; PHP json_encode escaping ("\\/", \\uXXXX)
  2.1  the payload text: compact JSON of the fields, or the input's "payload"
       string as is when the input is already a 2.1 message
Compare the string with the one your code signs: the first difference is the bug.
--explain prints the steps from the request to that string (the top-level
order, the leaves that change, the objects written as lists) and the string,
card data and key material redacted, to compare with what the gateway's
support sees; --key is optional with it and adds the signature.

Options:
  -k, --key <file>            The private key to sign with (PEM or base64 DER)
      --passphrase <p>        Passphrase of an encrypted private key
  -v, --sign-version <v>      2.0 or 2.1. Default: 2.0
      --message               Print the complete signed message as JSON instead
  -e, --explain               Explain how the signed string is made, step by step
  -h, --help                  Show this help

Exit codes: 0 signed or explained, 1 unreadable input or key, 2 bad usage,
130 Ctrl+C.`,
	async run(args, io) {
		const { values, positionals } = parse(
			args,
			{
				key: FLAGS.key,
				passphrase: FLAGS.passphrase,
				"sign-version": FLAGS.signVersion,
				message: { type: "boolean" },
				explain: { type: "boolean", short: "e" },
			},
			{ command: this.name, io, deprecated: { "-m": { use: "message", why: "-m means --merchant-id" } } },
		);
		if (values.help) {
			io.stdout(`${this.help}\n`);
			return EXIT.ok;
		}
		if (positionals.length !== 1) throw usageError("give exactly one file, or - for standard input");
		const version = signVersionFlag(values["sign-version"]);
		if (values.explain && values.message) throw usageError("give --explain or --message, not both");
		const key =
			values.explain && values.key === undefined
				? undefined
				: await readPrivateKeyFile("--key", values.key, values.passphrase);
		const input = await readInput(positionals[0] ?? "-", io, "the message file");
		try {
			const fields = parseJsonObject(input, "input");
			if (values.explain) {
				const { signedString, text } = explainSignedString(fields, version);
				io.stdout(key === undefined ? text : `${text}signature:\n${signText(signedString, key)}\n`);
				return EXIT.ok;
			}
			const { text, message } = signedText(fields, version);
			const signature = signText(text, key as PrivateKey);
			if (values.message) {
				io.stdout(
					`${JSON.stringify(
						version === "2.1" ? { payload: text, signVersion: "2.1", signature } : { ...message, signature },
						null,
						2,
					)}\n`,
				);
			} else {
				io.stdout(
					`signVersion: ${version}\n${version === "2.1" ? "payload" : "canonical string"}:\n${text}\n` +
						`signature:\n${signature}\n`,
				);
			}
			return EXIT.ok;
		} catch (error) {
			throw new CliError(describeFailure(error));
		}
	},
};

function signedText(
	fields: Record<string, unknown>,
	version: SignVersion,
): { text: string; message: Record<string, unknown> } {
	if (version === "2.1") {
		if (typeof fields.payload === "string") return { text: fields.payload, message: fields };
		const { signature: _s, signVersion: _v, ...rest } = fields;
		return { text: JSON.stringify(rest), message: rest };
	}
	const { signature: _s, ...rest } = fields;
	return { text: canonicalString(rest), message: rest };
}
