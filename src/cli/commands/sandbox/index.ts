import { clockCommand } from "./clock.js";
import type { ControlCommand } from "./control-command.js";
import { ipnCommand } from "./ipn.js";
import { refundsCommand } from "./refunds.js";
import { transactionsCommand } from "./transactions.js";

/** `merchant-gateway sandbox <name>`: the commands that drive a running sandbox. */
export const CONTROL_COMMANDS: readonly ControlCommand[] = [
	transactionsCommand,
	refundsCommand,
	ipnCommand,
	clockCommand,
];

/** The control commands as the sandbox's --help lists them. */
export const CONTROL_COMMANDS_HELP = CONTROL_COMMANDS.map(
	(command) => `  sandbox ${command.name.padEnd(14)} ${command.summary}`,
).join("\n");
