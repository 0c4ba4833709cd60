import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { AuthenticationError } from "../../errors/authentication-error.js";
import { ConfigurationError } from "../../errors/configuration-error.js";
import { ConnectionError } from "../../errors/connection-error.js";
import { OutcomeUnknownError } from "../../errors/outcome-unknown-error.js";
import { type FieldIssue, RequestValidationError } from "../../errors/request-validation-error.js";
import { redactText } from "../../internal/redact.js";
import {
	checkPrivateFolder,
	DEMO_SHOP_PATH,
	KEY_FILES,
	type RunningSandbox,
	readPrivateFile,
	readRunningSandbox,
	STATE_FILES,
} from "../../sandbox/cli-entry.js";
import { actionOf, defineCommand, type Parsed } from "../command.js";
import { FLAGS, originFlag, signVersionFlag } from "../flags.js";
import { CliError, EXIT, usageError } from "../io.js";
import { readPrivateKeyFile, readPublicKeyFile } from "../keys.js";
import { describeFailure, sandboxRefusal } from "./failure.js";

/** The flags of `checkout create`. */
const OPTIONS = {
	"sandbox-url": { type: "string" },
	amount: { type: "string" },
	currency: { type: "string" },
	"merchant-id": FLAGS.merchantId,
	key: FLAGS.key,
	passphrase: FLAGS.passphrase,
	"gateway-key": FLAGS.gatewayKey,
	"keys-dir": FLAGS.keysDir,
	"state-dir": FLAGS.stateDir,
	"sign-version": FLAGS.signVersion,
	"order-ref": { type: "string" },
	description: { type: "string" },
	"callback-url": { type: "string" },
	"notification-url": { type: "string" },
	"cancel-url": { type: "string" },
	"error-url": { type: "string" },
	"brand-name": { type: "string" },
	"color-mode": { type: "string" },
	json: FLAGS.json,
} as const;

/** The flag that sets each request field or client option not named as its flag is. */
const FLAG_OF: Record<string, string> = {
	baseUrl: "--sandbox-url",
	privateKey: "--key",
	gatewayPublicKey: "--gateway-key",
	orderDescription: "--description",
};

/** The flag that sets a request field or client option, so an error names what to change; else the field. */
function flagOf(field: string): string {
	const named = field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
	return FLAG_OF[field] ?? (Object.hasOwn(OPTIONS, named) ? `--${named}` : field);
}

const describeIssues = (issues: readonly FieldIssue[]) =>
	issues.map((issue) => `${flagOf(issue.field)} ${issue.message}`).join("; ");

export const checkout = defineCommand({
	name: "checkout",
	summary: "Create a checkout in a running sandbox and print its payment link",
	help: `Usage: merchant-gateway checkout create --sandbox-url <url> --amount <n> --currency <code> [options]

Creates a hosted checkout session through the SDK's own client, in a sandbox
started with \`merchant-gateway sandbox\`, and prints its transaction id and the
payment link to open in a browser. The response's signature is verified with the
gateway's public key, as your server would. Without the URL flags the buyer
returns to the sandbox's stand-in shop pages and the IPN goes to its stand-in
IPN route, which verifies and acknowledges it.

Options:
      --sandbox-url <url>     The sandbox's URL, as its banner prints it
      --state-dir <dir>       The running sandbox's --state-dir: gives --sandbox-url,
                              -m, -v, --key and --gateway-key when they are not given
      --amount <n>            Amount in major units, up to 2 decimals: 10.00
      --currency <code>       ISO 4217 code: EUR
  -m, --merchant-id <id>      Default: sandbox-merchant (the sandbox's default), or
                              the state directory's
  -k, --key <file>            The merchant's private key to sign with (PEM or
                              base64 DER)
      --passphrase <p>        Passphrase of an encrypted --key
  -g, --gateway-key <file>    The gateway's public key (PEM or base64 DER)
      --keys-dir <dir>        Where \`sandbox --keys-dir\` wrote the keys: gives
                              --key (${KEY_FILES.merchantPrivate}) and --gateway-key
                              (${KEY_FILES.gatewayPublic}) when they are not given
  -v, --sign-version <v>      2.0 or 2.1. Default: 2.0
      --order-ref <ref>       Default: cli- and a random suffix
      --description <text>    Shown on the hosted page. Default: Order from the CLI
      --callback-url <url>    Where the buyer returns after paying
      --notification-url <u>  Where the IPN goes
      --cancel-url <url>      Where the buyer goes on Cancel
      --error-url <url>       Where the buyer goes when the payment fails
                              (the four default to the sandbox's stand-in shop)
      --brand-name <name>     Shown on the hosted page instead of the account's
      --color-mode <c>        primary---accent---background colours of the page
      --json                  Print the result as JSON
  -h, --help                  Show this help

Exit codes: 0 created, 1 refused or not verified, 2 bad usage, 130 Ctrl+C (the
checkout may then exist: look for its --order-ref in the sandbox's log).`,
	options: OPTIONS,
	async run({ values, positionals }, io) {
		const [, rest] = actionOf(positionals, "create");
		if (rest.length > 0) throw usageError(`unexpected argument ${rest[0]}`);
		const stateDir = values["state-dir"];
		const running = stateDir === undefined ? undefined : await runningSandbox(stateDir, values["sandbox-url"]);
		const sandboxUrl = values["sandbox-url"] ?? running?.url;
		if (!sandboxUrl) throw usageError("--sandbox-url <url> (or --state-dir <dir>) is required");
		const origin = originFlag("--sandbox-url", sandboxUrl, "http://127.0.0.1:8080", "the sandbox's origin");
		if (values.amount === undefined) throw usageError("--amount <n> is required");
		if (!/^\d{1,15}(\.\d{1,2})?$/.test(values.amount))
			throw usageError("--amount must be a decimal number with at most 2 decimals, such as 10.00");
		if (!values.currency) throw usageError("--currency <code> is required");
		const signVersion = signVersionFlag(values["sign-version"] ?? running?.signVersion);
		const merchantId = values["merchant-id"] ?? running?.merchantId ?? "sandbox-merchant";
		const privateFile = keyFile(values, "key", KEY_FILES.merchantPrivate);
		const gatewayFile = keyFile(values, "gateway-key", KEY_FILES.gatewayPublic);
		if (stateDir !== undefined) await checkStateKeys(stateDir, [privateFile, gatewayFile]);
		const privateKey = await readPrivateKeyFile(privateFile.flag, privateFile.path, values.passphrase);
		const gatewayPublicKey = await readPublicKeyFile(gatewayFile.flag, gatewayFile.path);
		const shop = `${origin}${DEMO_SHOP_PATH}`;
		const orderRef = values["order-ref"] ?? `cli-${randomBytes(6).toString("hex")}`;
		const { GatewayClient } = await import("../../client.js");
		try {
			const gateway = new GatewayClient({
				baseUrl: origin,
				merchantId,
				privateKey,
				gatewayPublicKey,
				signVersion,
				allowLoopbackHttp: true,
			});
			const session = await gateway.checkout.create({
				orderRef,
				amount: Number(values.amount),
				currency: values.currency,
				paymentMethod: "checkout",
				orderDescription: values.description ?? "Order from the CLI",
				callbackUrl: values["callback-url"] ?? `${shop}/callback`,
				notificationUrl: values["notification-url"] ?? `${shop}/ipn`,
				cancelUrl: values["cancel-url"] ?? `${shop}/cancel`,
				errorUrl: values["error-url"] ?? `${shop}/error`,
				...(values["brand-name"] === undefined ? {} : { brandName: values["brand-name"] }),
				...(values["color-mode"] === undefined ? {} : { colorMode: values["color-mode"] }),
			});
			const result = { orderRef, transactionId: session.transactionId, paymentLink: session.paymentLink };
			io.stdout(
				values.json
					? `${JSON.stringify(result, null, 2)}\n`
					: `order ref:      ${orderRef}\ntransaction id: ${session.transactionId}\n` +
							`payment link:\n${session.paymentLink}\n`,
			);
			return EXIT.ok;
		} catch (error) {
			if (error instanceof ConfigurationError || error instanceof RequestValidationError)
				throw new CliError(redactText(describeIssues(error.issues)), EXIT.usage);
			const unreachable = error instanceof ConnectionError || (error as Error).cause instanceof ConnectionError;
			const hint = unreachable ? ` (is the sandbox running at --sandbox-url ${origin}?)` : "";
			throw new CliError(`${describeFailure(error)}${hint}${flagHint(error, merchantId, signVersion)}`);
		}
	},
});

/** Where --key or --gateway-key comes from: the flag, else --keys-dir, else the state directory's keys. */
function keyFile(values: Parsed<typeof OPTIONS>["values"], flag: "key" | "gateway-key", name: string) {
	const keysDir = values["keys-dir"];
	const dir = keysDir ?? (values["state-dir"] === undefined ? undefined : join(values["state-dir"], STATE_FILES.keys));
	const given = values[flag];
	if (given !== undefined || !dir) return { flag: `--${flag}`, path: given };
	return { flag: keysDir ? "--keys-dir" : "--state-dir", path: join(dir, name) };
}

/**
 * The key files taken from a state directory are the sandbox's: its `keys/` must be the user's alone and
 * a key file there no link (a key given by a flag is read where the flag says).
 */
async function checkStateKeys(stateDir: string, files: ReturnType<typeof keyFile>[]): Promise<void> {
	const fromState = files.flatMap(({ flag, path }) => (flag === "--state-dir" && path ? [path] : []));
	if (fromState.length === 0) return;
	try {
		await checkPrivateFolder(join(stateDir, STATE_FILES.keys), { followLink: false });
		for (const path of fromState) await readPrivateFile(path);
	} catch (error) {
		throw sandboxRefusal(error);
	}
}

/** The sandbox running on a state directory; without one there, only --sandbox-url lets the command go on. */
async function runningSandbox(stateDir: string, sandboxUrl: string | undefined): Promise<RunningSandbox | undefined> {
	try {
		return await readRunningSandbox(stateDir);
	} catch (error) {
		if (sandboxUrl !== undefined) return undefined;
		throw sandboxRefusal(error);
	}
}

/** The flag that fixes a refusal the sandbox explains: an unknown merchant id, or another signing version. */
function flagHint(error: unknown, merchantId: string, signVersion: string): string {
	const message = error instanceof Error ? error.message : "";
	if (error instanceof AuthenticationError && message.includes("this sandbox has no merchant"))
		return ` Pass one of its merchant ids with -m <id> (--merchant-id), or start the sandbox with -m ${merchantId}.`;
	if (error instanceof OutcomeUnknownError && message.includes("signed in another signing version")) {
		const other = signVersion === "2.0" ? "2.1" : "2.0";
		return ` The sandbox signs ${other}: pass -v ${other} (--sign-version), or --state-dir to read it from there.`;
	}
	return "";
}
