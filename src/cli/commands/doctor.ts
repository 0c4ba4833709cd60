import { diagnoseSignature, type SignatureAttempt, type SignatureDiagnosis } from "../../signing/doctor/diagnose.js";
import { defineCommand } from "../command.js";
import { FLAGS, OLD_GATEWAY_KEY_SHORT } from "../flags.js";
import { INPUT_LIMIT_HELP, readInput } from "../input.js";
import { EXIT, usageError } from "../io.js";
import { readPublicKeyFile } from "../keys.js";
import { orFailure } from "./failure.js";

const SHAPES = {
	flat: "a flat message (IPN, transaction query or checkout response)",
	wrapped: "a wrapped response ({status, message, data or payload}; only data or payload is signed)",
	callback: "a callback redirect",
} as const;

function attemptLines(attempt: SignatureAttempt): string[] {
	const failed = attempt.error ? "cannot be made" : "does not verify";
	const verdict = attempt.verified ? `VERIFIES with key ${(attempt.keyIndex ?? 0) + 1}` : failed;
	const lines = [`  ${attempt.form} (${attempt.signVersion}): ${verdict}`, `    ${attempt.description}`];
	if (attempt.error) lines.push(`    ${attempt.error}`);
	else if (attempt.sameStringAs) lines.push(`    signed string: the same as ${attempt.sameStringAs}'s`);
	else lines.push("    signed string:", `    ${attempt.signedString}`);
	return lines;
}

/** The report as plain text for a terminal or a support ticket. */
export function formatDiagnosis(report: SignatureDiagnosis): string {
	const { message } = report;
	const readFrom = message.readFrom === "text" ? "the raw text" : "a parsed object";
	const none = "NO form verifies this message.";
	const verdict = report.form === undefined ? none : `the ${report.form} form verifies this message.`;
	const lines = [
		`Message:   ${SHAPES[message.shape]}, signVersion ${message.signVersion}, read from ${readFrom}`,
		`Signature: ${message.signature}`,
		`Keys:      ${report.keyBits.map((bits, i) => `key ${i + 1} (${bits} bits)`).join(", ")}`,
		"",
		`Verdict: ${verdict}`,
		"",
		"Forms tried (card data and key material redacted):",
		...report.attempts.flatMap(attemptLines),
		"",
	];
	if (report.advice !== undefined) lines.push("What to do:", ...report.advice.split("\n").map((line) => `  ${line}`));
	else
		lines.push("Likely causes, most specific first:", ...report.likelyCauses.map((cause, i) => `  ${i + 1}. ${cause}`));
	return `${lines.join("\n")}\n`;
}

export const doctor = defineCommand({
	name: "doctor",
	summary: "Find out why a signature does not verify, and how to configure the SDK",
	help: `Usage: merchant-gateway doctor <file|-|url> --gateway-key <file> [--gateway-key <file>] [--json]

Diagnoses "invalid signature". Reads a signed message exactly as received: an
IPN or API response body (JSON, flat or wrapped, 2.0 or 2.1) from a file or from
standard input (-), or a callback redirect URL (in a file, or given directly:
quote it in your shell). Tries the gateway's reference form, 2.1 and the 2.0
forms seen in public integrations (the gateway's NodeJS snippet, flattened
nested objects, this SDK's retired first form) and prints which one verifies,
the exact string each form signs (card data and key material redacted) and how
to configure the SDK for the one that verifies, or, when none does, the likely
causes. Give the body as received: a re-serialized body may no longer verify.

${INPUT_LIMIT_HELP}

Options:
  -g, --gateway-key <file>    The gateway's public key (PEM or base64 DER); repeat
                              it to try every key of a rotation
      --json                  Print the result as JSON
  -h, --help                  Show this help

Exit codes: 0 a form verifies, 1 none verifies or the input is not a signed
message, 2 bad usage, 130 Ctrl+C.`,
	options: { "gateway-key": { ...FLAGS.gatewayKey, multiple: true }, json: FLAGS.json },
	deprecated: OLD_GATEWAY_KEY_SHORT,
	async run({ values, positionals }, io) {
		if (positionals.length !== 1) throw usageError("give exactly one file, - for standard input, or a callback URL");
		const keyFiles = values["gateway-key"] ?? [];
		if (keyFiles.length === 0) throw usageError("--gateway-key <file> is required");
		const publicKey = await Promise.all(keyFiles.map((file) => readPublicKeyFile("--gateway-key", file)));
		const source = positionals[0] ?? "-";
		// A byte-order mark comes from an editor that saved the body, never from the gateway.
		const message = /^https?:\/\//i.test(source)
			? source
			: (await readInput(source, io, "the message")).replace(/^\uFEFF/, "");
		const report = orFailure(() => diagnoseSignature(message, { publicKey }));
		io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatDiagnosis(report));
		return report.verified ? EXIT.ok : EXIT.failure;
	},
});
