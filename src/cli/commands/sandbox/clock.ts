import { type ClockMove, DURATION_RULE, parseDuration } from "../../../sandbox/cli-entry.js";
import { actionOf } from "../../command.js";
import { usageError } from "../../io.js";
import { CONTROL_FLAGS_HELP, defineControlCommand, onePositional, runControl } from "./control-command.js";
import { describeAttempt } from "./delivery-text.js";

function moved({ now, deliveries }: ClockMove): string {
	const lines = [`sandbox clock: ${now}`];
	if (deliveries.length === 0) lines.push("no IPN fell due");
	for (const attempt of deliveries) lines.push(`IPN ${describeAttempt(attempt)}`);
	return lines.join("\n");
}

export const clockCommand = defineControlCommand({
	name: "clock",
	summary: "Move the running sandbox's clock forward: sessions expire, due IPN retries run",
	help: `Usage: merchant-gateway sandbox clock advance <duration> --state-dir <dir> [options]

Moves the running sandbox's clock forward by <duration>: 90s, 30m, 25h, 2d or
1h30m. Checkout sessions past their expiry expire (their IPN goes out), pending
charges settle, and IPN retries that fall due run at once; the command waits
for those deliveries and prints the merchant's responses. The clock never goes
back.

Options:
${CONTROL_FLAGS_HELP}

Exit codes: 0 moved, 1 the sandbox is not running or refused, 2 bad usage.`,
	async run({ values, positionals }, io) {
		const [, rest] = actionOf(positionals, "advance");
		const text = onePositional(rest, "a duration such as 30m");
		const ms = parseDuration(text);
		if (ms === undefined) throw usageError(`${text} ${DURATION_RULE}, up to ten years`);
		return runControl(io, values, (control) => control.advanceClock(ms), moved);
	},
});
