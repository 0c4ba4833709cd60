import { fstat, stat } from "node:fs";
import { writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { KnownSecrets, REDACTED, redactText } from "../../internal/redact.js";
import type { PrivateKey } from "../../signing/keys.js";
import { parseJsonObject } from "../../signing/open.js";
import { type SignVersion, signText } from "../../signing/seal.js";
import { defineCommand } from "../command.js";
import { FLAGS, signVersionFlag } from "../flags.js";
import { INPUT_LIMIT_HELP, readInput } from "../input.js";
import { CliError, EXIT, fileProblem, usageError } from "../io.js";
import { readPrivateKeyFile } from "../keys.js";
import { explainSignedString, signedText } from "./explain.js";
import { orFailure } from "./failure.js";

/**
 * Printed instead of the signature of a message that carries card data: with the first six and last four
 * digits shown, the signature and the public key would let the hidden digits and the security code be found
 * by trying them all.
 */
const WITHHELD_NOTE =
	"(card data is redacted here, and the signature with it: beside the visible digits it would let the\n" +
	"hidden ones be found by trial. --unredacted-out <file> writes the complete signed message to a new file.)";

export const sign = defineCommand({
	name: "sign",
	summary: "Sign a JSON message and show the exact string that was signed",
	help: `Usage: merchant-gateway sign <file|-> --key <file> [--passphrase <p>] [--sign-version 2.0|2.1] [--message]
                             [--unredacted-out <file>]
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

What is printed never shows a card number or security code: the number is
masked to its first six and last four digits, the code removed, and the
signature of such a message withheld. --unredacted-out writes the complete
signed message, card data included, to a new file (mode 600), never to the
terminal.

${INPUT_LIMIT_HELP}

Options:
  -k, --key <file>            The private key to sign with (PEM or base64 DER)
      --passphrase <p>        Passphrase of an encrypted private key
  -v, --sign-version <v>      2.0 or 2.1. Default: 2.0
      --message               Print the complete signed message as JSON instead
                              (card data redacted)
      --unredacted-out <file> Also write the complete signed message with its
                              card number and security code to <file>, a new
                              file; never standard output or a terminal
  -e, --explain               Explain how the signed string is made, step by step
  -h, --help                  Show this help

Exit codes: 0 signed or explained, 1 unreadable input or key, or --unredacted-out
exists, 2 bad usage, 130 Ctrl+C.`,
	options: {
		key: FLAGS.key,
		passphrase: FLAGS.passphrase,
		"sign-version": FLAGS.signVersion,
		message: { type: "boolean" },
		"unredacted-out": { type: "string" },
		explain: { type: "boolean", short: "e" },
	},
	deprecated: { "-m": { use: "message", why: "-m means --merchant-id" } },
	async run({ values, positionals }, io) {
		if (positionals.length !== 1) throw usageError("give exactly one file, or - for standard input");
		const version = signVersionFlag(values["sign-version"]);
		if (values.explain && values.message) throw usageError("give --explain or --message, not both");
		const unredactedOut = values["unredacted-out"];
		if (unredactedOut === "-")
			throw usageError("--unredacted-out writes card data to a file only, never to standard output: name a file");
		if (unredactedOut !== undefined && values.explain && values.key === undefined)
			throw usageError("--unredacted-out needs --key: it writes the signed message");
		const key =
			values.explain && values.key === undefined
				? undefined
				: await readPrivateKeyFile("--key", values.key, values.passphrase);
		const input = await readInput(positionals[0] ?? "-", io, "the message");
		const mode = values.explain ? "explain" : values.message ? "message" : "text";
		const output = orFailure(() => signOutput(parseJsonObject(input, "input"), version, key, mode));
		if (unredactedOut !== undefined && output.complete !== undefined) {
			await writeUnredacted(unredactedOut, output.complete);
			io.stderr(`merchant-gateway sign: the complete signed message, card data included, is in ${unredactedOut}\n`);
		}
		if (output.note !== undefined) io.stderr(`merchant-gateway sign: ${output.note}\n`);
		io.stdout(output.printed);
		return EXIT.ok;
	},
});

interface SignOutput {
	/** What goes to standard output: card data redacted, and the signature too when it covers card data. */
	printed: string;
	/** A note for standard error, beside JSON that must stay parseable. */
	note?: string | undefined;
	/** The complete signed message, unredacted: only ever written to a file. */
	complete?: string | undefined;
}

/** The signed string, the signature and the message, as `sign` shows them in each mode. */
function signOutput(
	fields: Record<string, unknown>,
	version: SignVersion,
	key: PrivateKey | undefined,
	mode: "text" | "message" | "explain",
): SignOutput {
	const known = new KnownSecrets(fields);
	const { text, message } = signedText(fields, version);
	const signature = key === undefined ? undefined : signText(text, key);
	const carriesSecrets = redactText(text, known) !== text;
	const withheld = carriesSecrets && signature !== undefined;
	const shownSignature = withheld ? REDACTED : signature;
	const signed = (sig: string | undefined) => {
		const complete =
			version === "2.1" ? { payload: text, signVersion: "2.1", signature: sig } : { ...message, signature: sig };
		return `${JSON.stringify(complete, null, 2)}\n`;
	};
	const complete = signature === undefined ? undefined : signed(signature);
	if (mode === "message")
		return { printed: redactText(signed(shownSignature), known), note: withheld ? WITHHELD_NOTE : undefined, complete };
	let printed =
		mode === "explain"
			? explainSignedString(fields, version)
			: `signVersion: ${version}\n${version === "2.1" ? "payload" : "canonical string"}:\n${redactText(text, known)}\n`;
	if (shownSignature !== undefined) printed += `signature:\n${shownSignature}\n`;
	if (withheld) printed += `${WITHHELD_NOTE}\n`;
	return { printed, complete };
}

const statOf = promisify(stat);
const fstatOf = promisify(fstat);

/** Whether `path` is the terminal, a device, or the file standard output or standard error already writes to. */
async function isTerminalOrOutput(path: string): Promise<boolean> {
	try {
		const target = await statOf(path);
		if (target.isCharacterDevice()) return true;
		for (const fd of [1, 2]) {
			const output = await fstatOf(fd).catch(() => undefined);
			if (output && output.dev === target.dev && output.ino === target.ino) return true;
		}
	} catch {
		// Gone again: whatever it was, the write refused it.
	}
	return false;
}

/** Writes the unredacted message to a new file only ("wx": never over an existing file, a device or a terminal). */
async function writeUnredacted(path: string, text: string): Promise<void> {
	try {
		await writeFile(path, text, { mode: 0o600, flag: "wx" });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "EEXIST" && (await isTerminalOrOutput(path)))
			throw new CliError(
				`--unredacted-out ${path} is a terminal, a device or standard output: it writes card data to a new file only`,
			);
		throw new CliError(`cannot write --unredacted-out ${path}: ${fileProblem(error)}; it is never overwritten`);
	}
}
