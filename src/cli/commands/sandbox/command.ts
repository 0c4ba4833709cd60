import { KEY_FILES, STATE_FILES } from "../../../sandbox/cli-entry.js";
import { type Command, defineCommand } from "../../command.js";
import { clockCommand } from "./clock.js";
import { ipnCommand } from "./ipn.js";
import { refundsCommand } from "./refunds.js";
import { OLD_GATEWAY_PRIVATE_KEY, START_OPTIONS, startSandbox } from "./start.js";
import { transactionsCommand } from "./transactions.js";

/** `merchant-gateway sandbox <name>`: the commands that drive a running sandbox. */
const CONTROL_COMMANDS: readonly Command[] = [transactionsCommand, refundsCommand, ipnCommand, clockCommand];

const start = defineCommand({
	name: "sandbox",
	summary: "Run the gateway sandbox on loopback HTTP",
	help: `Usage: merchant-gateway sandbox [options]

Starts the gateway simulator: the /v2 API, the hosted checkout page and the
3DS page. Prints its URL, the merchant id, the gateway's public key and the
merchant key, then logs every request and IPN delivery until Ctrl+C (or
SIGTERM), or until the process that started it ends (npx, a script), when it
closes its connections and exits 0. Through npx, stop it with Ctrl+C, SIGTERM
(kill <npx pid>) or SIGINT to the process group: SIGINT to npx's pid alone is
held back by the shell npm runs it in.
Without --merchant-key a throwaway merchant key pair is generated and its
private key printed (or saved with --state-dir or --keys-dir): it is a sandbox
key only. With --state-dir everything survives a restart: keys, the merchant
account, transactions, refunds, pending IPN deliveries and the clock.

Options:
  -p, --port <n>              Port. Default: 8080 (0 picks a free one)
      --host <addr>           Interface. Default: 127.0.0.1 (loopback only)
      --allow-non-loopback    Permit a non-loopback --host
      --public-url <url>      The origin the buyer's browser and your server reach
                              the sandbox at (a proxy or tunnel, such as
                              https://sandbox.example.test): every link it prints
                              or responds with uses it. Default: the listening address
  -m, --merchant-id <id>      Default: sandbox-merchant
      --merchant-key <file>   The merchant's PUBLIC key (PEM) to register
  -k, --key <file>            The gateway's private key to sign with (PEM; its
                              public key is derived). Default: a fresh pair
      --passphrase <p>        Passphrase of an encrypted --key
  -v, --sign-version <v>      2.0 or 2.1. Default: 2.0
      --refund-approval <m>   auto or manual. Default: auto
      --hpp-only              Hosted-page processors only (S2S gets the no-provider error)
      --state-dir <dir>       Keep the sandbox's state there, created on first use
                              and resumed on every start: keys (in <dir>/keys), the
                              control credential, accounts, transactions, refunds,
                              IPN deliveries, the clock. One sandbox per directory;
                              the commands below and checkout create take the same
                              --state-dir. Default: a temporary directory
      --keys-dir <dir>        Keys only: reuse the key files there, or save new
                              ones (${KEY_FILES.gatewayPrivate}, ${KEY_FILES.gatewayPublic},
                              ${KEY_FILES.merchantPrivate}, ${KEY_FILES.merchantPublic}) instead
                              of printing them; checkout create --keys-dir reads them
      --keep-running          Keep running when the process that started it ends
                              (a CI step that starts it for later steps); stop it
                              with kill <pid>, the pid is in <state-dir>/${STATE_FILES.lock}
      --ipn-time-scale <x>    Multiply IPN retry delays (e.g. 0.01). Default: 1
  -q, --quiet                 One line (URL, merchant id, where the keys are)
                              instead of the banner, and no request log
  -h, --help                  Show this help

Deprecated: --gateway-private-key (use --key); --gateway-public-key (derived from
--key now; when given it must match).

Commands that drive a running sandbox (each takes --state-dir <dir>, and
--json for JSON; see merchant-gateway sandbox <command> --help):
${CONTROL_COMMANDS.map((command) => `  sandbox ${command.name.padEnd(14)} ${command.summary}`).join("\n")}

Exit codes: 0 stopped (Ctrl+C, SIGTERM, or its starter ended), 1 could not start (the port
is taken, the state directory is in use or cannot be read), 2 bad usage.`,
	options: START_OPTIONS,
	deprecated: OLD_GATEWAY_PRIVATE_KEY,
	run: startSandbox,
});

export const sandbox: Command = {
	...start,
	run(args, io) {
		const control = CONTROL_COMMANDS.find((command) => command.name === args[0]);
		return control ? control.run(args.slice(1), io) : start.run(args, io);
	},
};
