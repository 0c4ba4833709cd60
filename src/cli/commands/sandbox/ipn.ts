import type { DeliveryAttempt } from "../../../sandbox/cli-entry.js";
import { actionOf } from "../../command.js";
import { usageError } from "../../io.js";
import { CONTROL_FLAGS_HELP, defineControlCommand, onePositional, runControl } from "./control-command.js";
import { describeAttempt, retryCalledOffBy } from "./delivery-text.js";

/**
 * `ipn list`'s text: one attempt a line, oldest first. A retry that a later acknowledged attempt called off is
 * said to be called off, not still due.
 */
export function listAttempts(attempts: readonly DeliveryAttempt[]): string {
	if (attempts.length === 0) return "No IPN deliveries yet.";
	return attempts
		.map((attempt, index) => {
			const calledOffBy = retryCalledOffBy(attempt, attempts.slice(index + 1));
			return `${attempt.finishedAt}  ${describeAttempt(attempt, calledOffBy)}`;
		})
		.join("\n");
}

export const ipnCommand = defineControlCommand({
	name: "ipn",
	summary: "List recent IPN deliveries, or resend a transaction's or refund's IPN now",
	help: `Usage: merchant-gateway sandbox ipn list --state-dir <dir> [--limit <n>] [options]
       merchant-gateway sandbox ipn resend <transactionId|refundId> --state-dir <dir> [options]

list    the latest IPN delivery attempts, oldest first: the event, the URL, the
        merchant's response (or the failure) and when the next retry is due.
resend  delivers the current IPN of a transaction or a refund now, unchanged,
        and prints the merchant's response. Acknowledged, it calls off the retry
        that was waiting; refused, the retry schedule stays as it was.

Options:
      --limit <n>             list: how many attempts, 1 to 1000. Default: 50
${CONTROL_FLAGS_HELP}

Exit codes: 0 done, 1 unknown id, no IPN yet, or the sandbox is not running
(an IPN the merchant refused is still exit 0: read its response), 2 bad usage.`,
	options: { limit: { type: "string" } },
	async run({ values, positionals }, io) {
		const [action, rest] = actionOf(positionals, "list", "resend");
		if (action === "list") {
			if (rest.length > 0) throw usageError(`unexpected argument ${rest[0]}`);
			const limit = values.limit === undefined ? undefined : Number(values.limit);
			if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000))
				throw usageError("--limit must be a whole number from 1 to 1000");
			return runControl(io, values, (control) => control.deliveries({ limit }), listAttempts);
		}
		const id = onePositional(rest, "a transaction id or a refund id");
		if (values.limit !== undefined) throw usageError("--limit goes with list");
		return runControl(
			io,
			values,
			(control) => control.resendIpn(id),
			(attempt) => `IPN ${describeAttempt(attempt)}`,
		);
	},
});
